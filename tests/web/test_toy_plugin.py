"""A fourth game needs only its package and one registration: High Card, defined in the
tests (tests/judge/highcard/, registered for the whole suite by tests/conftest.py), goes
through the API, a new version's check, a tournament, the navigation and the replay page
(drawn by its own renderer, served from its package) with no other line written for it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.test import Client
from playwright.sync_api import expect

from judge.games import GAMES, register, unregister
from tests.judge.highcard import HighCard
from tests.web.conftest import Visit, make_user, played_tournament, quick_bot, uploaded_bot
from tournaments.models import Match
from tournaments.play import runner, version_checks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
]


@pytest.fixture
def highcard() -> Iterator[None]:
    """High Card registered for the test (and left as it was: the suite registers it)."""
    already = HighCard.name in GAMES
    register(HighCard)
    yield
    if not already:
        unregister(HighCard.name)


@pytest.mark.usefixtures("highcard")
def test_a_toy_game_is_checked_played_and_replayed_through_the_service(visit: Visit) -> None:
    games = {game["name"]: game for game in Client().get("/api/games/").json()}
    assert games["highcard"]["title"] == "High Card"
    assert games["highcard"]["variant_titles"] == {"standard": "Aces high", "aces-low": "Aces low"}
    assert games["highcard"]["option_schema"][0]["maximum"] == 10

    owner = make_user("toy-fan")
    version = uploaded_bot(owner, "highcard", "player")
    report = version_checks.run_check(
        "highcard", bytes(version.code), version.pk, lambda: runner.make_backend("local")
    )
    assert report["passed"], report["reason"]
    assert [(m["players"], m["variant"]) for m in report["matches"]] == [
        (2, "standard"),
        (2, "aces-low"),
    ]

    rival = quick_bot(owner, "highcard", "rival")
    tournament = played_tournament(owner, "highcard", [version, rival], options={"rounds": 2})
    match = Match.objects.get(tournament=tournament)
    assert match.result["scores"][0] + match.result["scores"][1] == 0

    page = visit.page
    visit.go("/")
    expect(page.locator("nav")).to_contain_text("High Card")
    visit.go(f"/matches/{match.pk}/")
    expect(page.locator("h1")).to_contain_text("High Card")
    expect(page.locator("#rv-counter")).to_have_text(re.compile(r"step 1 of \d+"))
    boxes = page.locator(".seat-box")
    expect(boxes).to_have_count(2)
    expect(page.locator("#rv-table .card.back")).to_have_count(0)
    for seat in (0, 1):
        expect(boxes.nth(seat).locator(".card")).to_have_count(1)
    expect(page.locator(".public-facts")).to_contain_text("rounds")
    page.locator("#rv-seat").select_option("1")
    expect(boxes.nth(1).locator(".card:not(.back)")).to_have_count(1)
    expect(boxes.nth(0).locator(".card.back")).to_have_count(1)
    visit.shot("highcard-seat-1")
