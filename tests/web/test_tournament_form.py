"""The web tournament form is bounded like the API: its limits, rated play only with the
standard clocks, and no retired version offered."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.web.conftest import make_user, uploaded_bot
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db  # nothing is played: tasks are sent only after commit

ADDRESS = reverse("web:tournament_create") + "?game=bigtwo"


def form(**changes: Any) -> dict[str, Any]:
    return {
        "game": "bigtwo",
        "name": "cup",
        "variant": "standard",
        "table_size": "2",
        "participants": ["house:random", "house:greedy"],
        "games_per_pairing": "2",
        "rounds": "1",
        "move_s": "1",
        "bank_s": "10",
        "startup_s": "10",
        **changes,
    }


@pytest.fixture
def browser() -> Client:
    client = Client()
    client.force_login(make_user("owner"))
    return client


@pytest.mark.parametrize(
    ("field", "value", "limit"),
    [("games_per_pairing", "50", "20"), ("move_s", "30", "5"), ("bank_s", "600", "60")],
)
def test_values_the_api_would_refuse_are_refused(
    browser: Client, field: str, value: str, limit: str
) -> None:
    text = browser.post(ADDRESS, form(**{field: value})).content.decode()
    assert f"less than or equal to {limit}" in text
    assert not Tournament.objects.exists()


def test_standard_clocks_are_rated_and_hostile_ones_unrated(browser: Client) -> None:
    answer = browser.post(ADDRESS, form(name="standard"), follow=True)
    assert Tournament.objects.get(name="standard").rated
    assert "unrated" not in answer.content.decode()
    answer = browser.post(ADDRESS, form(name="hostile", move_s="0.05", bank_s="0"), follow=True)
    hostile = Tournament.objects.get(name="hostile")
    assert not hostile.rated
    assert hostile.time_control == {"startup_s": 10.0, "move_s": 0.05, "bank_s": 0.0}
    assert "It is unrated: its clocks are not the standard ones." in answer.content.decode()


def test_a_retired_version_is_neither_offered_nor_accepted(browser: Client) -> None:
    owner = make_user("player")
    kept, retired = uploaded_bot(owner, "bigtwo", "kept"), uploaded_bot(owner, "bigtwo", "gone")
    retired.retired = True
    retired.save(update_fields=["retired"])
    page = browser.get(ADDRESS).content.decode()
    assert f'value="v{kept.pk}"' in page and f'value="v{retired.pk}"' not in page
    text = browser.post(ADDRESS, form(participants=[f"v{kept.pk}", f"v{retired.pk}"]))
    assert "is not one of the available choices" in text.content.decode()
    assert not Tournament.objects.exists()
