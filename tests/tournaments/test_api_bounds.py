"""Issue 31, item 3: a request's work is bounded by its page, not by the data: admin
searches go through an index (no sequential scan of a big table, whatever the term), and
a tournament's pages and head-to-head cost the same queries for 4 entrants as for the
most a tournament takes (whose number the web form now enforces too)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.tournaments.plans import tables_read_whole
from tests.tournaments.test_api_queries import anchor, make_rows
from tournaments.api.serializers import MAX_PARTICIPANTS
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.models import BotVersion, Match, Seat, bundle_code

#: The tables that grow with play and uploads; a search must never read one whole.
BIG_TABLES = (
    *("tournaments_match", "tournaments_seat", "tournaments_ratinghistory"),
    *("tournaments_bot", "tournaments_botversion", "tournaments_tournament"),
    *("tournaments_rating", "auth_user"),
)
SEARCHES = [
    "/admin/tournaments/match/?q={term}",
    "/admin/tournaments/seat/?q={term}",
    "/admin/tournaments/ratinghistory/?q={term}",
    "/admin/tournaments/botversion/?q={term}",
    "/admin/tournaments/bot/?q={term}",
    "/admin/tournaments/tournament/?q={term}",
    "/admin/tournaments/rating/?q={term}",
]
TERMS = ["12", "cup1", "bot1", "²", "9" * 25, "a b"]


@pytest.fixture
def admin_client(db: None, settings: Any) -> Client:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    admin = User.objects.create_superuser("admin", password="long enough password")
    client = Client(raise_request_exception=False)
    client.force_login(admin)
    make_rows(admin, anchor(admin), 3, 0)
    return client


def whole_reads(sql: str) -> list[str]:
    """The big tables the planner reads whole for ``sql`` when it has any other way: a
    sequential scan, or an index scan with no condition (every entry of the index)."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}")
        plan = cursor.fetchone()[0]
        cursor.execute("SET LOCAL enable_seqscan = on")
    return tables_read_whole(plan, BIG_TABLES)


@pytest.mark.parametrize("term", TERMS)
@pytest.mark.parametrize("search", SEARCHES)
def test_admin_searches_read_big_tables_through_an_index(
    admin_client: Client, search: str, term: str
) -> None:
    with CaptureQueriesContext(connection) as captured:
        answer = admin_client.get(search.format(term=term))
    assert answer.status_code == 200, answer.content[:300]
    selects = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("SELECT")]
    scans = {sql[:300]: found for sql in selects if (found := whole_reads(sql))}
    assert scans == {}


def test_a_match_is_found_by_its_id_and_by_its_tournaments_name(admin_client: Client) -> None:
    match = Match.objects.filter(tournament__isnull=True).first()
    assert match is not None
    by_id = admin_client.get(f"/admin/tournaments/match/?q={match.pk}").content.decode()
    assert f"/admin/tournaments/match/{match.pk}/change/" in by_id
    versions = entrants(User.objects.get(username="admin"), 2)
    tournament = competition_actions.create_tournament(None, "findme", "oceans11", versions)
    Match.objects.create(game="oceans11", tournament=tournament, number=1)
    by_name = admin_client.get("/admin/tournaments/match/?q=findme").content.decode()
    assert by_name.count('<th class="field-id"') == 1


def entrants(owner: User, count: int) -> list[BotVersion]:
    versions = []
    for i in range(count):
        bot = bot_actions.create_bot(owner, "oceans11", f"e{count}x{i}")
        code, digest = bundle_code({"main.py": f"# {count} {i}\n".encode()})
        versions.append(bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED))
    return versions


def finished_tournament(owner: User, count: int) -> int:
    """A finished round robin of ``count`` entrants, one stored match per pair."""
    versions = entrants(owner, count)
    tournament = competition_actions.create_tournament(owner, f"cup{count}", "oceans11", versions)
    number = 0
    for i, a in enumerate(versions):
        for b in versions[i + 1 :]:
            number += 1
            match = Match.objects.create(
                game="oceans11",
                tournament=tournament,
                number=number,
                status=Match.Status.DONE,
                result={"scores": [1, -1], "places": [1, 2], "games": []},
            )
            Seat.objects.bulk_create(
                [
                    Seat(match=match, index=0, version=a, bot=a.bot),
                    Seat(match=match, index=1, version=b, bot=b.bot),
                ]
            )
    tournament.status = tournament.Status.FINISHED
    tournament.save(update_fields=["status"])
    return tournament.pk


def cost(url: str, client: Any) -> int:
    client.get(url)  # the table is fitted and cached once
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(url)
    assert answer.status_code == 200, answer.content[:300]
    return len(captured)


def test_a_tournaments_pages_cost_the_same_for_4_and_the_most_entrants(
    db: None, settings: Any
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = User.objects.create_user("owner", password="a long password 1")
    small, large = finished_tournament(owner, 4), finished_tournament(owner, MAX_PARTICIPANTS)
    api, web = APIClient(), Client()
    for path, client in [
        ("/api/tournaments/{}/head-to-head/", api),
        ("/api/tournaments/{}/standings/", api),
        ("/tournaments/{}/", web),
    ]:
        assert cost(path.format(small), client) == cost(path.format(large), client), path
    pairs = api.get(f"/api/tournaments/{large}/head-to-head/").json()["pairs"]
    assert len(pairs) == MAX_PARTICIPANTS * (MAX_PARTICIPANTS - 1)


def test_the_tournament_form_takes_at_most_the_api_s_entrants(db: None, settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = User.objects.create_user("owner", password="a long password 1")
    versions = entrants(owner, MAX_PARTICIPANTS + 1)
    client = Client()
    client.force_login(owner)
    fields = {
        "name": "too big",
        "variant": "standard",
        "table_size": "2",
        "participants": [f"v{v.pk}" for v in versions],
        "games_per_pairing": "1",
        "rounds": "1",
        "move_s": "1",
        "bank_s": "10",
        "startup_s": "10",
    }
    answer = client.post("/tournaments/new/?game=oceans11", fields)
    assert answer.status_code == 200
    assert f"a tournament takes at most {MAX_PARTICIPANTS}" in answer.content.decode()
