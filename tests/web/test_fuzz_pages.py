"""Issue 31, item 1: the web pages' query parameters and forms, fuzzed with hypothesis:
whatever a client puts in the query string or a form (Unicode digits, huge numbers, stray
fields), every page answers below 500, anonymous or signed in."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.models import BotVersion, Match, Rating, Seat, bundle_code

#: The parameters the pages read, and a few they do not.
NAMES = [
    *("after", "before", "place", "elo", "game", "status", "mine", "part", "bot", "seat"),
    *("matches_before", "page", "cursor", "table_size", "rounds", "games_per_pairing"),
    *("participants", "name", "variant", "options", "duplicate", "version", "seats", "next"),
]
#: Text a number parser must refuse, next to what hypothesis makes up.
NASTY = ["²", "⁹", "٣", "9" * 20, "-1", "1e999", "nan", "0x10", " 1", "", "\x00", "v" + "9" * 20]
VALUES = st.one_of(st.sampled_from(NASTY), st.integers(-(2**70), 2**70).map(str), st.text())
QUERIES = st.dictionaries(st.one_of(st.sampled_from(NAMES), st.text(max_size=5)), VALUES)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture
def site(db: None, settings: Any) -> dict[str, Any]:
    """An owner, their bot with a version, a tournament and a finished match of them."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.JUDGE_SANDBOX = "local"
    owner = User.objects.create_user("fuzzer", password="a long password 1")
    versions = []
    for name in ("fuzzbot", "rival"):
        bot = bot_actions.create_bot(owner, "oceans11", name)
        code, digest = bundle_code({"main.py": f"# {name}\n".encode()})
        versions.append(bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED))
        Rating.objects.create(bot=bot, game="oceans11", elo=1500, matches=1)
    tournament = competition_actions.create_tournament(
        owner, "cup", "oceans11", versions, table_size=2
    )
    match = Match.objects.create(game="oceans11", status=Match.Status.DONE, seed=1)
    Seat.objects.bulk_create(Seat(match=match, index=i, version=v) for i, v in enumerate(versions))
    bot_id, version_id = versions[0].bot_id, versions[0].pk
    pages = [
        "/",
        "/leaderboard/oceans11/",
        "/tournaments/",
        "/tournaments/new/",
        f"/tournaments/{tournament.pk}/",
        f"/bots/{bot_id}/",
        f"/versions/{version_id}/",
        f"/matches/{match.pk}/",
        f"/matches/{match.pk}/frames/",
        "/docs/",
        "/accounts/login/",
        "/accounts/signup/",
    ]
    forms = [
        "/accounts/signup/",
        "/accounts/login/",
        "/tournaments/new/?game=oceans11",
        f"/bots/{bot_id}/quick/",
        "/bots/upload/",
        f"/bots/{bot_id}/upload/",
        f"/tournaments/{tournament.pk}/cancel/",
    ]
    return {"owner": owner, "pages": pages, "forms": forms}


def clients(owner: User) -> list[Client]:
    anonymous = Client(raise_request_exception=False)
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(owner)
    return [anonymous, signed_in]


def test_every_page_answers_any_query_below_500(site: dict[str, Any]) -> None:
    visitors = clients(site["owner"])

    @FUZZ
    @given(page=st.sampled_from(site["pages"]), query=QUERIES)
    def check(page: str, query: dict[str, str]) -> None:
        for client in visitors:
            answer = client.get(page, query)
            assert answer.status_code < 500, (page, query, answer.content[:500])

    check()


def test_every_form_answers_any_fields_below_500(site: dict[str, Any]) -> None:
    visitors = clients(site["owner"])

    @FUZZ
    @given(form=st.sampled_from(site["forms"]), fields=QUERIES)
    def check(form: str, fields: dict[str, str]) -> None:
        for client in visitors:
            answer = client.post(form, fields)
            assert answer.status_code < 500, (form, fields, answer.content[:500])

    check()
