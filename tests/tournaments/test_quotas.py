"""Per-user quotas (tournaments.guard.quotas): counted in the database, 429 with Retry-After on
the API, the same words on the web form; another user is not affected."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper
from rest_framework.test import APIClient

from tests.tournaments.conftest import first_legal
from tournaments.models import Bot, BotVersion, Match, Tournament
from tournaments.play import version_checks

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_throttles() -> None:
    cache.clear()  # the per-process rate throttles are not what is tested here


def signed_in(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def entrants(owner: User, count: int) -> list[BotVersion]:
    versions = [first_legal("bigtwo", f"{owner.username}-{i}") for i in range(count)]
    Bot.objects.filter(versions__in=versions).update(owner=owner)
    return versions


def new_tournament(client: APIClient, versions: list[BotVersion]) -> Any:
    body = {"name": "cup", "game": "bigtwo", "table_size": 2}
    made = client.post(
        "/api/tournaments/", {**body, "participants": [v.pk for v in versions]}, format="json"
    )
    assert made.status_code == 201, made.json()
    return made.json()["id"]


def refused(answer: Any, words: str) -> None:
    assert answer.status_code == 429, answer.content
    assert 1 <= int(answer["Retry-After"]) <= 3600
    assert words in answer.json()["detail"]


def test_new_versions_beyond_the_hourly_quota_are_refused(settings: SettingsWrapper) -> None:
    settings.QUOTA_UPLOADS_PER_HOUR = 2
    owner, other = User.objects.create(username="up"), User.objects.create(username="other")
    bot = Bot.objects.create(owner=owner, game="bigtwo", name="b")
    client = signed_in(owner)
    url = f"/api/bots/{bot.pk}/versions/"

    def upload(text: str) -> Any:
        return client.post(url, {"file": SimpleUploadedFile("bot.py", text.encode())})

    assert [upload(f"X = {i}\n").status_code for i in range(2)] == [201, 201]
    refused(upload("X = 2\n"), "at most 2 new bot versions an hour")
    assert upload("X = 1\n").status_code == 200, "known code is no new version"
    assert BotVersion.objects.filter(bot=bot).count() == 2
    theirs = Bot.objects.create(owner=other, game="bigtwo", name="b")
    answer = signed_in(other).post(
        f"/api/bots/{theirs.pk}/versions/", {"file": SimpleUploadedFile("bot.py", b"X = 9\n")}
    )
    assert answer.status_code == 201


def test_uploads_the_server_could_not_check_are_not_charged(settings: SettingsWrapper) -> None:
    settings.QUOTA_UPLOADS_PER_HOUR = 1
    owner = User.objects.create(username="up")
    bot = Bot.objects.create(owner=owner, game="bigtwo", name="b")
    client = signed_in(owner)
    url = f"/api/bots/{bot.pk}/versions/"

    def upload(text: str) -> Any:
        return client.post(url, {"file": SimpleUploadedFile("bot.py", text.encode())})

    assert upload("X = 0\n").status_code == 201
    # The worker could not check it (a host fault: the runtime image is missing).
    first = BotVersion.objects.get(bot=bot)
    BotVersion.objects.filter(pk=first.pk).update(status=BotVersion.Status.CHECKING)
    version_checks.not_checked(first.pk, "the python runtime image is missing")
    first.refresh_from_db()
    assert first.check_report["host"] is True
    assert upload("X = 1\n").status_code == 201, "the server's fault is not charged"
    refused(upload("X = 2\n"), "at most 1 new bot versions an hour")


def test_tournaments_running_and_matches_waiting_are_bounded(settings: SettingsWrapper) -> None:
    settings.QUOTA_TOURNAMENTS_RUNNING = 1
    settings.QUOTA_MATCHES_QUEUED = 5
    owner = User.objects.create(username="busy")
    client = signed_in(owner)
    versions = entrants(owner, 4)  # 6 matches: more than may wait
    big = new_tournament(client, versions)
    refused(client.post(f"/api/tournaments/{big}/start/"), "this tournament has 6 matches")
    assert Tournament.objects.get(pk=big).status == Tournament.Status.DRAFT
    assert Match.objects.count() == 0

    small = new_tournament(client, versions[:3])  # 3 matches
    assert client.post(f"/api/tournaments/{small}/start/").status_code == 202  # scheduling
    second = new_tournament(client, versions[:2])
    refused(client.post(f"/api/tournaments/{second}/start/"), "1 tournaments running")
    client.post(f"/api/tournaments/{small}/cancel/")
    assert client.post(f"/api/tournaments/{second}/start/").status_code == 202


def test_quick_matches_beyond_the_hourly_quota_are_refused(settings: SettingsWrapper) -> None:
    settings.QUOTA_QUICK_MATCHES_PER_HOUR = 2
    owner = User.objects.create(username="quick")
    version = entrants(owner, 1)[0]
    client = signed_in(owner)
    body = {"version": version.pk, "house_bots": ["random"]}
    answers = [client.post("/api/matches/quick/", body, format="json") for _ in range(2)]
    assert [a.status_code for a in answers] == [202, 202]
    refused(client.post("/api/matches/quick/", body, format="json"), "2 quick matches an hour")
    assert Match.objects.filter(requested_by=owner).count() == 2


def test_the_web_form_says_why_a_tournament_was_not_started(settings: SettingsWrapper) -> None:
    settings.QUOTA_MATCHES_QUEUED = 2
    owner = User.objects.create(username="webby")
    versions = entrants(owner, 3)
    browser = Client()
    browser.force_login(owner)
    form = {
        "game": "bigtwo",
        "name": "too big",
        "variant": "standard",
        "table_size": 2,
        "participants": [f"v{v.pk}" for v in versions],
        "games_per_pairing": 1,
        "rounds": 1,
        "move_s": 1.0,
        "bank_s": 10.0,
        "startup_s": 10.0,
    }
    page = browser.post("/tournaments/new/?game=bigtwo", form)
    assert page.status_code == 200
    assert "this tournament has 3 matches" in page.content.decode()
    assert not Match.objects.exists()
