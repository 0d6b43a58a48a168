"""Issue 42, item 4: a private duel's round matches, their replays and live feeds are its
owner's (and staff's): another user and an anonymous visitor get 404 on the web and the
API, and never see them listed; a house duel's (no owner) stay public. The rounds are
played in-process (the test settings run tasks eagerly), each with its replay."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from tests.tournaments.test_duels import own_version
from tournaments.bots import bot_actions
from tournaments.competitions import duels
from tournaments.competitions.duels import DuelRequest
from tournaments.models import Match

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("local_sandbox"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def visitors() -> dict[str, User | None]:
    return {
        "owner": User.objects.create(username="duellist"),
        "other": User.objects.create(username="other"),
        "staff": User.objects.create(username="staff", is_staff=True),
        "anonymous": None,
    }


def answers(user: User | None, match: Match, bot_id: int) -> dict[str, Any]:
    """What ``user`` is answered for the match, its replay and feed, and lists of it."""
    web, api = Client(), APIClient()
    if user is not None:
        web.force_login(user)
        api.force_authenticate(user)
    link = f"/matches/{match.pk}/"
    listed = api.get("/api/matches/", {"bot": bot_id}).json()["results"]
    return {
        "page": web.get(link).status_code,
        "status": web.get(link, {"part": "status"}).status_code,
        "frames": web.get(f"{link}frames/", {"game": "0", "seat": "all"}).status_code,
        "live": web.get(f"{link}live/").status_code,
        "api": api.get(f"/api/matches/{match.pk}/").status_code,
        "replay": api.get(f"/api/matches/{match.pk}/replay/").status_code,
        "api list": match.pk in [found["id"] for found in listed],
        "bot page": link in web.get(f"/bots/{bot_id}/").content.decode(),
    }


SEEN = {"page": 200, "status": 200, "frames": 200, "live": 200, "api": 200, "replay": 200}
HIDDEN = {"page": 404, "status": 404, "frames": 404, "live": 404, "api": 404, "replay": 404}


def test_a_duels_matches_and_replays_are_its_owners_alone() -> None:
    people = visitors()
    b = own_version(people["owner"], "greedy")  # type: ignore[arg-type]
    a = bot_actions.house_version("oceans11", "random")
    request = DuelRequest(b=b, a=a, pairs_per_round=2, max_games=20, seed=5)
    duel = duels.create_duel(people["owner"], request)  # type: ignore[arg-type]
    match = duel.matches.filter(status=Match.Status.DONE).first()
    assert match is not None, "the duel's first round was played"

    seen = {who: answers(user, match, b.bot_id) for who, user in people.items()}
    for who in ("owner", "staff"):
        assert seen[who] == {**SEEN, "api list": True, "bot page": True}, who
    for who in ("other", "anonymous"):
        assert seen[who] == {**HIDDEN, "api list": False, "bot page": False}, who


def test_a_house_duels_matches_stay_public() -> None:
    greedy = bot_actions.house_version("oceans11", "greedy")
    random = bot_actions.house_version("oceans11", "random")
    duel = duels.create_duel(None, DuelRequest(b=greedy, a=random, pairs_per_round=2, max_games=20))
    match = duel.matches.filter(status=Match.Status.DONE).first()
    assert match is not None
    seen = answers(None, match, greedy.bot_id)
    assert seen == {**SEEN, "api list": True, "bot page": True}
