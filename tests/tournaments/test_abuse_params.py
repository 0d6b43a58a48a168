"""Issue 31, item 1: every case the attack found answers 400 naming the parameter, never
500: tampered cursors on every list, Unicode digits in the web pages' paging and in the
tournament form, a twenty-digit opponent of a quick match."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from tournaments.bots import bot_actions
from tournaments.guard import queryparams
from tournaments.models import BotVersion, Rating, bundle_code

TAMPERED = [
    base64.b64encode(text.encode()).decode()
    for text in ("p=' OR 1=1--", "r=1&p=abc", "p=2026-01-01", "o=1&p=%00", "p=1.5")
]
LISTS = [
    "/api/matches/",
    "/api/bots/",
    "/api/versions/",
    "/api/tournaments/",
    "/api/leaderboards/oceans11/",
    "/api/bots/?ordering=name",
]


@pytest.fixture(autouse=True)
def quick_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def owner(db: None) -> User:
    return User.objects.create_user("owner", password="a long password 1")


def accepted(owner: User, name: str) -> BotVersion:
    bot = bot_actions.create_bot(owner, "oceans11", name)
    code, digest = bundle_code({"main.py": f"# {name}\n".encode()})
    version = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
    Rating.objects.create(bot=bot, game="oceans11", elo=1500 + version.pk, matches=1)
    return version


@pytest.mark.parametrize("cursor", [*TAMPERED, "nonsense", "²", "a" * 5000])
@pytest.mark.parametrize("url", LISTS)
def test_a_cursor_the_server_did_not_make_is_a_400_naming_it(
    owner: User, url: str, cursor: str
) -> None:
    accepted(owner, "one")
    joiner = "&" if "?" in url else "?"
    answer = APIClient().get(f"{url}{joiner}cursor={cursor}")
    assert answer.status_code == 400, answer.content[:300]
    assert "cursor" in answer.json()


def test_a_cursor_made_for_another_ordering_is_refused(owner: User) -> None:
    for i in range(3):
        accepted(owner, f"bot{i}")
    client = APIClient()
    by_name = client.get("/api/bots/?ordering=name&page_size=1").json()["next"]
    cursor = parse_qs(urlsplit(by_name).query)["cursor"][0]
    assert client.get(by_name).status_code == 200
    answer = client.get(f"/api/bots/?ordering=-id&cursor={cursor}")
    assert answer.status_code == 400
    assert "another ordering" in answer.json()["cursor"][0]


@pytest.mark.parametrize("size", ["²", "٣", "0", "101", "-1", "9" * 30, "1.5"])
def test_a_page_size_outside_1_to_100_in_ascii_digits_is_a_400(owner: User, size: str) -> None:
    answer = APIClient().get(f"/api/bots/?page_size={size}")
    assert answer.status_code == 400
    assert "page_size" in answer.json()


@pytest.mark.parametrize(
    "query", ["after=²", "after=1&elo=1500&place=⁹", "after=٣&elo=1", "after=1&elo=1e999"]
)
def test_unicode_digits_in_the_leaderboard_paging_are_a_400(owner: User, query: str) -> None:
    accepted(owner, "one")
    answer = Client(raise_request_exception=False).get(f"/leaderboard/oceans11/?{query}")
    assert answer.status_code == 400
    field = query.split("=")[0] if "²" in query or "٣" in query else query.rsplit("&", 1)[1]
    assert field.split("=")[0] in answer.content.decode()


def test_the_leaderboard_still_pages_with_ascii_keys(owner: User) -> None:
    version = accepted(owner, "one")
    rating = Rating.objects.get(bot=version.bot)
    query = f"after={version.bot_id - 1}&elo={rating.elo!r}&place=5"
    assert Client().get(f"/leaderboard/oceans11/?{query}").status_code == 200


@pytest.mark.parametrize("query", ["after=²", "before=²", f"after={'9' * 20}"])
def test_unicode_digits_in_the_tournament_list_paging_are_a_400(db: None, query: str) -> None:
    answer = Client(raise_request_exception=False).get(f"/tournaments/?{query}")
    assert answer.status_code == 400
    assert query.split("=")[0] in answer.content.decode()


def test_the_tournament_form_refuses_a_unicode_table_size(owner: User) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(owner)
    estimate = client.get("/tournaments/new/?game=oceans11&part=estimate&table_size=²")
    assert estimate.status_code == 200  # the estimate of a form being typed: the default
    posted = client.post(
        "/tournaments/new/?game=oceans11", {"name": "cup", "table_size": "²", "variant": "x"}
    )
    assert posted.status_code == 200
    assert "Select a valid choice" in posted.content.decode()


@pytest.mark.parametrize("opponent", [99999999999999999999, -1, 0])
def test_a_quick_match_opponent_no_column_holds_is_a_400(owner: User, opponent: int) -> None:
    client = APIClient()
    client.force_authenticate(owner)
    mine = accepted(owner, "mine")
    body = {"version": mine.pk, "opponents": [opponent]}
    answer = client.post("/api/matches/quick/", body, format="json")
    assert answer.status_code == 400
    assert "opponents" in answer.json()


@pytest.mark.parametrize("text", ["²", "٣", "1 ", "+1", "", "9" * 20])
def test_whole_number_takes_ascii_digits_within_bounds_only(text: str) -> None:
    with pytest.raises(queryparams.BadParameter, match=r"^size: "):
        queryparams.whole_number("size", text)
    assert queryparams.whole_number("size", "0042") == 42
