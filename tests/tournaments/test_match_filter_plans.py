"""Issue 32: the API's matches of one version or bot cost the same however many matches
the site holds. Asked as ``id IN (its seats)``, PostgreSQL walked the match index from the
newest match back until it met the seats of a version retired long ago (450,000 entries,
340 ms, at 500,000 matches); ``filters.seated`` asks ``id = ANY(ARRAY(...))``, which reads
the version's own seats and then those matches.

The history is seeded big enough (20,000 matches, ANALYZEd) that the planner chooses as on
a real site: every statement of the request is EXPLAINed and none may read the match or
seat table whole.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.tournaments.plans import nodes, tables_read_whole
from tournaments.models import Bot, BotVersion, Match

pytestmark = pytest.mark.django_db

MATCHES = 20_000
#: The popular version sits in every fifth of the oldest OLD matches, then never again.
OLD = 2_000
BOTS = 200
GROWING = ("tournaments_match", "tournaments_seat")


def seed() -> tuple[BotVersion, Bot]:
    """BOTS bots of one version; MATCHES finished two-seat matches, the first version
    seated only in the oldest ones. Returns it and a bot seated all along."""
    bots = Bot.objects.bulk_create(Bot(game="oceans11", name=f"b{i}") for i in range(BOTS))
    BotVersion.objects.bulk_create(
        BotVersion(bot=bot, number=1, content_hash=str(bot.pk), status="accepted") for bot in bots
    )
    first, low = BotVersion.objects.order_by("id")[0], bots[1].pk
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO tournaments_match (number, game, variant, options, games, duplicate,
            rated, seed, time_control, limits, status, attempt, worker, faults, failure,
            timings, created_at, units, duel_round, duel_seating, part, part_attempt, sent_to,
            parts)
            SELECT g, 'oceans11', 'standard', '{}', 1, false, true, g, '{}', '{}', 'finished',
            1, '', '[]', '', '{}', now(), '', 0, 0, 0, 0, '', 0
            FROM generate_series(1, %s) g""",
            [MATCHES],
        )
        start = Match.objects.order_by("id").values_list("id", flat=True)[0]
        # Seat 0: the popular version in every fifth old match, else one of the others;
        # seat 1: one of the others. Versions and bots share their order (one each).
        cursor.execute(
            """INSERT INTO tournaments_seat (match_id, index, version_id, bot_id, log, log_games)
            SELECT m.id, s.index, v.id, v.bot_id, '', '[]'
            FROM tournaments_match m CROSS JOIN (VALUES (0), (1)) AS s(index)
            JOIN tournaments_botversion v ON v.bot_id = CASE
                WHEN s.index = 0 AND m.id - %s < %s AND (m.id - %s) %% 5 = 0 THEN %s
                ELSE %s + 1 + (m.id * (7 + 6 * s.index) + s.index) %% %s END""",
            [start, OLD, start, first.bot_id, low, BOTS - 2],
        )
        for table in GROWING:
            cursor.execute(f'ANALYZE "{table}"')
    return first, bots[2]


def plans_of(address: str) -> list[list[str]]:
    """Each SQL statement of a GET of ``address``, EXPLAINed: the growing tables it reads
    whole."""
    found = []
    with connection.cursor() as cursor:
        for sql in match_statements(address):
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
            found.append(tables_read_whole(cursor.fetchone()[0], GROWING))
    return found


def match_statements(address: str) -> list[str]:
    """The SQL statements a GET of ``address`` (answered 200) ran on the match table."""
    with CaptureQueriesContext(connection) as captured:
        answer = APIClient().get(address)
    assert answer.status_code == 200, answer.content
    return [q["sql"] for q in captured.captured_queries if "tournaments_match" in q["sql"]]


def test_a_long_retired_versions_matches_are_read_from_its_own_seats() -> None:
    version, bot = seed()
    answer = APIClient().get(f"/api/matches/?version={version.pk}")
    listed = [row["id"] for row in answer.json()["results"]]
    expected = list(
        Match.objects.filter(seats__version=version).order_by("-id").values_list("id", flat=True)
    )
    assert listed == expected[: len(listed)] and len(listed) > 10
    for address in (f"/api/matches/?version={version.pk}", f"/api/matches/?bot={bot.pk}"):
        plans = plans_of(address)
        assert plans and all(read == [] for read in plans), (address, plans)


def seat_rows_read(address: str) -> list[int]:
    """The seat rows each statement of a GET of ``address`` reads (EXPLAIN ANALYZE's actual
    rows of its seat scans, summed over loops)."""
    return rows_read(address, "tournaments_seat")


def rows_read(address: str, table: str, removed: bool = False) -> list[int]:
    """The rows of ``table`` each LIMITed statement of a GET of ``address`` reads
    (EXPLAIN ANALYZE's actual rows of its scans of it, summed over loops; with
    ``removed``, and the rows a filter threw away)."""
    found = []
    with connection.cursor() as cursor:
        for sql in match_statements(address):
            if "LIMIT" not in sql:
                continue
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0]
            plan = json.loads(plan) if isinstance(plan, str) else plan
            found.append(
                sum(
                    (node["Actual Rows"] + removed * node.get("Rows Removed by Filter", 0))
                    * node["Actual Loops"]
                    for node in nodes(plan[0]["Plan"])
                    if node.get("Relation Name") == table
                )
            )
    return found


def test_a_busy_bots_match_pages_read_the_page_of_its_seats_at_any_depth() -> None:
    """Issue 47: ``?bot=`` read every seat of the bot (30,758 for the busiest at 500,000
    matches) to show a page; now one walk of the (bot, match) index that stops at the page,
    the cursor's position bounding it, however deep."""
    _, bot = seed()
    seated = Match.objects.filter(seats__bot=bot).count()
    assert seated > 150
    first = APIClient().get(f"/api/matches/?bot={bot.pk}&page_size=10").json()
    pages = [first]
    while len(pages) < 15 and pages[-1]["next"]:
        pages.append(APIClient().get(pages[-1]["next"]).json())
    listed = [row["id"] for page in pages for row in page["results"]]
    expected = Match.objects.filter(seats__bot=bot).order_by("-id").values_list("id", flat=True)
    assert listed == list(expected[: len(listed)]) and len(listed) == 150
    back = APIClient().get(pages[-1]["previous"]).json()
    assert [row["id"] for row in back["results"]] == listed[-20:-10]
    deep = pages[-1]["next"].split("testserver")[-1]
    for address in (f"/api/matches/?bot={bot.pk}&page_size=10", deep):
        assert all(rows <= 11 for rows in seat_rows_read(address)), address


def test_a_bot_seated_twice_in_a_match_lists_it_once() -> None:
    """DISTINCT ON the seat's match: a bot in two seats of one match is one row."""
    bot = Bot.objects.create(game="oceans11", name="twice")
    version = BotVersion.objects.create(bot=bot, number=1, content_hash="x", status="accepted")
    match = Match.objects.create(game="oceans11", status="done")
    for index in (0, 1):
        match.seats.create(index=index, version=version)
    answer = APIClient().get(f"/api/matches/?bot={bot.pk}").json()
    assert [row["id"] for row in answer["results"]] == [match.pk]
    answer = APIClient().get(f"/api/matches/?bot={bot.pk}&version={version.pk}").json()
    assert [row["id"] for row in answer["results"]] == [match.pk]


def old_big_two(rated: bool, status: str) -> None:
    """MATCHES / 2 Big Two matches of one status, inserted before ``seed``'s (so older
    than all of them: a game whose matches lie together)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO tournaments_match (number, game, variant, options, games,
            duplicate, rated, seed, time_control, limits, status, attempt, worker, faults,
            failure, timings, created_at, units, duel_round, duel_seating, part,
            part_attempt, sent_to, parts)
            SELECT g, 'bigtwo', 'standard', '{}', 1, false, %s, g, '{}', '{}', %s,
            1, '', '[]', '', '{}', now(), '', 0, 0, 0, 0, '', 0
            FROM generate_series(1, %s) g""",
            [rated, status, MATCHES // 2],
        )


def test_a_game_whose_matches_lie_together_pages_by_its_own_index() -> None:
    """Issue 47: ``?game=`` walked the match key from the newest match, skipping every
    other game's, when the game's matches lay together (a game no longer played: the
    planner expects them spread evenly over the key); now the page is one walk of the
    (game, id) index from the cursor's position, first page and deep alike."""
    old_big_two(rated=True, status="done")  # older than all the others
    seed()
    connection.cursor().execute('ANALYZE "tournaments_match"')
    pages = [APIClient().get("/api/matches/?game=bigtwo&page_size=10").json()]
    while len(pages) < 15:
        pages.append(APIClient().get(pages[-1]["next"]).json())
    listed = [row["id"] for page in pages for row in page["results"]]
    expected = Match.objects.filter(game="bigtwo").order_by("-id").values_list("id", flat=True)
    assert listed == list(expected[: len(listed)]) and len(listed) == 150
    back = APIClient().get(pages[-1]["previous"]).json()
    assert [row["id"] for row in back["results"]] == listed[-20:-10]
    deep = pages[-1]["next"].split("testserver")[-1]
    for address in ("/api/matches/?game=bigtwo&page_size=10", deep):
        read = rows_read(address, "tournaments_match", removed=True)
        assert read and all(rows <= 2 * 11 for rows in read), (address, read)
    done = APIClient().get("/api/matches/?game=bigtwo&status=done&page_size=10").json()
    assert [row["id"] for row in done["results"]] == listed[:10]


def test_filters_given_together_walk_their_own_index() -> None:
    """Issue 47: with ``?game=`` and ``?status=`` together, the page walked one field's
    index and filtered by the other, so a status common in one game and rare in another
    read a whole history (here 10,000 failed Big Two matches, or all 20,000 Oceans 11
    ones, to find the 3 failed Oceans 11 matches); each set of the walked filters now
    walks its own (fields..., id) index, and a page reads its own rows."""
    old_big_two(rated=False, status="failed")
    seed()
    oceans = Match.objects.filter(game="oceans11").order_by("id").values_list("id", flat=True)
    oldest = list(oceans[:3])
    Match.objects.filter(pk__in=oldest).update(status="failed")
    connection.cursor().execute('ANALYZE "tournaments_match"')
    for query, expected in (
        ("game=oceans11&status=failed", oldest[::-1]),
        ("game=oceans11&status=failed&rated=true", oldest[::-1]),
        ("game=oceans11&rated=false", []),
        ("status=failed&rated=true", oldest[::-1]),
        ("game=bigtwo&status=done", []),
    ):
        address = f"/api/matches/?{query}&page_size=10"
        answer = APIClient().get(address).json()
        assert [row["id"] for row in answer["results"]] == expected, query
        read = rows_read(address, "tournaments_match", removed=True)
        assert read and all(rows <= 2 * 11 for rows in read), (query, read)
