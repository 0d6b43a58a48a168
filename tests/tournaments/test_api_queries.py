"""Every list endpoint runs the same number of queries for 2 rows as for 12 (no N+1)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.models import BotVersion, Match, Rating, RatingHistory, Seat, bundle_code

LISTS = [
    "/api/bots/",
    "/api/bots/?game=bigtwo&ordering=-name",
    "/api/versions/",
    "/api/versions/?status=accepted",
    "/api/bots/{bot}/versions/?ordering=-number",
    "/api/tournaments/",
    "/api/matches/",
    "/api/matches/?bot={bot}&status=done",
    "/api/leaderboards/bigtwo/",
    "/api/leaderboards/bigtwo/?ordering=-matches",
    "/api/bots/{bot}/rating-history/",
    "/api/matches/?page_size=5&cursor={cursor}",
]


def anchor(owner: User) -> BotVersion:
    """The bot every other one plays against; it also gains a version per row."""
    bot = bot_actions.create_bot(owner, "bigtwo", "anchor")
    code, digest = bundle_code({"main.py": b"# anchor\n"})
    return bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def make_rows(owner: User, rival: BotVersion, count: int, start: int) -> None:
    """``count`` more of everything: bots, versions, ratings, tournaments, matches, seats."""
    for i in range(start, start + count):
        bot = bot_actions.create_bot(owner, "bigtwo", f"bot{i}")
        code, digest = bundle_code({"main.py": f"# {i}\n".encode()})
        version = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
        bot_actions.add_version(rival.bot, *bundle_code({"main.py": f"# anchor {i}\n".encode()}))
        Rating.objects.create(bot=bot, game="bigtwo", elo=1500 + i, matches=i)
        competition_actions.create_tournament(
            owner, f"cup{i}", "bigtwo", [version, rival], table_size=2
        )
        match = Match.objects.create(
            game="bigtwo",
            status=Match.Status.DONE,
            finished_at=timezone.now(),
            result={"scores": [1, -1], "places": [1, 2], "games": []},
        )
        Seat.objects.create(match=match, index=0, version=version, log="x" * 100)
        Seat.objects.create(match=match, index=1, version=rival, log="y" * 100)
        RatingHistory.objects.create(
            bot=rival.bot, match=match, game="bigtwo", seq=i + 1, before=1500 - i, after=1499 - i
        )


def urls(client: APIClient, rival: BotVersion) -> list[str]:
    """LISTS for these rows; the cursor is that of the second page of matches."""
    second = client.get("/api/matches/?page_size=1").json()["next"]
    cursor = parse_qs(urlsplit(second).query)["cursor"][0]
    return [url.format(bot=rival.bot_id, cursor=cursor) for url in LISTS]


def walk(client: APIClient, url: str) -> tuple[list[int], set[int]]:
    """Follow ``next`` from ``url`` to the end: the ids met, and each page's query count."""
    ids: list[int] = []
    counts = set()
    while url:
        with CaptureQueriesContext(connection) as captured:
            page = client.get(url).json()
        counts.add(len(captured))
        ids += [row.get("id", row.get("seq", row.get("bot"))) for row in page["results"]]
        url = page["next"]
    return ids, counts


def queries(client: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return len(captured)


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "owner"])
def test_every_list_runs_the_same_queries_for_few_and_many_rows(
    db: None, signed_in: bool, settings: Any
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = User.objects.create_user("owner", password="long enough password")
    client = APIClient()
    if signed_in:
        client.force_authenticate(owner)
    rival = anchor(owner)
    make_rows(owner, rival, 2, 0)
    few = [queries(client, url) for url in urls(client, rival)]
    make_rows(owner, rival, 10, 2)
    many = [queries(client, url) for url in urls(client, rival)]
    assert dict(zip(LISTS, many, strict=True)) == dict(zip(LISTS, few, strict=True))
    rows = client.get("/api/matches/").json()
    assert len(rows["results"]) == 12  # the rows were really there
    ordered = client.get(f"/api/bots/{rival.bot_id}/versions/?ordering=-number&page_size=50")
    numbers = [row["number"] for row in ordered.json()["results"]]
    assert numbers == list(range(13, 0, -1))


def test_cursor_pages_walk_every_row_once_at_the_same_cost(db: None, settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = User.objects.create_user("owner", password="long enough password")
    client = APIClient()
    rival = anchor(owner)
    make_rows(owner, rival, 12, 0)
    ids, counts = walk(client, "/api/matches/?page_size=5")
    assert ids == sorted(Match.objects.values_list("id", flat=True), reverse=True)
    assert len(counts) == 1  # the last page costs what the first does
    ids, counts = walk(client, f"/api/bots/{rival.bot_id}/rating-history/?page_size=5")
    assert ids == list(range(12, 0, -1)) and len(counts) == 1
    board, _ = walk(client, "/api/leaderboards/bigtwo/?page_size=5")
    assert len(board) == len(set(board)) == 12
    elos = [row["elo"] for row in client.get("/api/leaderboards/bigtwo/").json()["results"]]
    assert elos == sorted(elos, reverse=True)
    refused = client.get("/api/matches/?page=2")  # no page numbers: the first page
    assert refused.status_code == 200 and "count" not in refused.json()
    assert client.get("/api/matches/?cursor=nonsense").status_code == 400
