"""Every leaderboard and match-list request's query plans at 5,000, 50,000 and 500,000
matches: the same plan at every size, and the whole set's SQL cost against the smallest.

Seeds one PostgreSQL database per size with the same users, bots (2,400 over three games,
one rated version each, their ratings and field views) and tournaments (150), and a
history of ``size`` finished rated matches (2 seats, 4 in Big Two's), their seats and
one rating change per seat, written by bulk SQL (``generate_series``: 500,000 matches in
minutes, where the ORM took too long under load). Every fifth match seats each game's
busiest bot, so its history grows with the site (33,000 seats at 500,000); one
version retires after the first 2,000 matches. Then ANALYZE, as autovacuum would.

Each request (``REQUESTS``: the leaderboards, web and API, top and deep pages; the match
lists, web and API, by bot, version, tournament, game and status, first and deep pages)
runs once on each database with its statements captured; each statement is EXPLAIN
ANALYZEd. The bench prints, per request, whether its plans' shape (``shape``: how each
statement reaches the history tables, by which index or whole) is the same at every
size, whether its reads are bounded (``rows_read``: the history rows its scans read,
kept or filtered out, no more at the largest size than READ_GROWTH times the size
before's: a plan of the same shape may still walk the history, as a walk of the match
key filtered by game did), the planner's total cost and those rows at each size, and the
SQL time (median of ``--runs``, the sizes taking turns), then the whole set's ratios
against 5,000 matches (the baseline, measured in the same run). It exits non-zero when a
plan differs between sizes, a read grows, or the set's SQL time at the largest size is
above GOAL_RATIO times the smallest's.

Run: ``python -m bench.service.plans [--sizes 5000 50000 500000] [--runs 5] [--keep]``
(``--keep``: the databases are named for their size, kept and reused by a later run;
``--prefix``: their names before the size, so that two checkouts' runs do not share them).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bench._service import configure

GAMES = ("oceans11", "bigtwo", "fifteen35")
BOTS_PER_GAME = 800
TOURNAMENTS_PER_GAME = 50
#: The retired version sits in every fifth of the first RETIRED_AFTER matches of its game.
RETIRED_AFTER = 2_000
#: What the issue asks of the whole set at 500,000 matches against 5,000.
GOAL_RATIO = 1.3
#: How much more a request may read at the largest size than at the one before (a read
#: bounded by the page reads the same; one that grows with the history, ten times more).
READ_GROWTH = 1.25
#: The kept databases' names (``--keep``), before their size.
KEPT = "bench_plans_keep"


def seed(matches: int) -> None:
    """The site at ``matches`` matches in the current (empty, migrated) database."""
    from django.contrib.auth.models import User
    from django.db import connection
    from django.utils import timezone

    from tournaments.models import (
        Bot,
        BotVersion,
        FieldPass,
        FieldRating,
        Rating,
        Tournament,
    )

    owners = User.objects.bulk_create(User(username=f"author{k}") for k in range(40))
    bots = Bot.objects.bulk_create(
        Bot(game=game, name=f"{game}-{k}", owner=owners[k % len(owners)])
        for game in GAMES
        for k in range(BOTS_PER_GAME)
    )
    BotVersion.objects.bulk_create(
        BotVersion(bot=bot, number=1, content_hash=f"h{bot.pk}", status="accepted", ever_rated=True)
        for bot in bots
    )
    Tournament.objects.bulk_create(
        Tournament(name=f"{game} cup {k}", game=game, status="finished", rated=True)
        for game in GAMES
        for k in range(TOURNAMENTS_PER_GAME)
    )
    with connection.cursor() as cursor:
        _history(cursor, matches)
    now = timezone.now()
    ratings = Rating.objects.bulk_create(
        Rating(bot=bot, game=bot.game, elo=1500.0 + (k * 37) % 600, matches=0, units=50)
        for k, bot in enumerate(bots)
    )
    FieldRating.objects.bulk_create(
        FieldRating(rating=r, elo=r.elo + 3.0, deviation=40.0, fitted_at=now) for r in ratings
    )
    FieldPass.objects.bulk_create(FieldPass(game=game, ran_at=now) for game in GAMES)
    with connection.cursor() as cursor:
        cursor.execute(
            """UPDATE tournaments_rating r SET matches = c.n FROM (SELECT bot_id, count(*) n
            FROM tournaments_ratinghistory GROUP BY bot_id) c WHERE c.bot_id = r.bot_id"""
        )
        cursor.execute("ANALYZE")


def _history(cursor: Any, matches: int) -> None:
    """``matches`` finished rated matches, their seats and rating changes, by bulk SQL.
    Match n is of game n % 3, in one of its tournaments; seat 0 of every fifth match is
    the game's busiest bot (its first), else bots spread over the game's."""
    cursor.execute(
        """CREATE TEMP TABLE game_of AS SELECT k - 1 AS g, name FROM
        unnest(%s::text[]) WITH ORDINALITY AS t(name, k)""",
        [list(GAMES)],
    )
    cursor.execute(
        """INSERT INTO tournaments_match (number, game, variant, options, games, duplicate,
        rated, seed, time_control, limits, status, attempt, worker, faults, failure, timings,
        created_at, started_at, finished_at, units, duel_round, duel_seating, tournament_id,
        rating_seq, result, part, part_attempt, sent_to, parts)
        SELECT n, o.name, 'standard', '{}', 1, false, true, n, '{}', '{}', 'done', 1, '',
        '[]', '', '{}', t0 + n * interval '20 s', t0 + n * interval '20 s',
        t0 + n * interval '20 s' + interval '15 s', '', 0, 0,
        (SELECT min(id) FROM tournaments_tournament WHERE game = o.name)
            + (n / 3) %% %s, n, CASE WHEN o.name = 'bigtwo' THEN '{"places": [1, 2, 3, 4]}'
            ELSE '{"places": [1, 2]}' END::jsonb, 0, 0, '', 0
        FROM generate_series(1, %s) AS series(n)
        JOIN game_of o ON o.g = n %% 3,
        (SELECT timestamptz '2025-01-01' AS t0) s""",
        [TOURNAMENTS_PER_GAME, matches],
    )
    cursor.execute(
        """CREATE TEMP TABLE bots_of AS SELECT game, array_agg(v.id ORDER BY b.id) versions,
        array_agg(b.id ORDER BY b.id) bots FROM tournaments_bot b
        JOIN tournaments_botversion v ON v.bot_id = b.id GROUP BY game"""
    )
    cursor.execute(
        """INSERT INTO tournaments_seat (match_id, index, version_id, bot_id, log, log_games)
        SELECT m.id, s.index, o.versions[p.k], o.bots[p.k], '', '[]'
        FROM tournaments_match m JOIN bots_of o ON o.game = m.game
        CROSS JOIN generate_series(0, 3) s(index)
        CROSS JOIN LATERAL (SELECT CASE
            WHEN s.index = 0 AND m.number %% 5 = 0 THEN 1
            WHEN s.index = 0 AND m.number <= %s AND m.number %% 5 = 1 THEN 2
            ELSE 3 + (m.number * (7 + 6 * s.index) + s.index * 131) %% %s END AS k) p
        WHERE s.index < CASE WHEN m.game = 'bigtwo' THEN 4 ELSE 2 END""",
        [RETIRED_AFTER, BOTS_PER_GAME - 3],
    )
    cursor.execute(
        """INSERT INTO tournaments_ratinghistory (bot_id, match_id, game, seq, before, after,
        deviation, created_at)
        SELECT s.bot_id, s.match_id, m.game,
        row_number() OVER (PARTITION BY s.bot_id ORDER BY s.match_id), 1500, 1501, 50,
        m.finished_at FROM (SELECT DISTINCT bot_id, match_id FROM tournaments_seat) s
        JOIN tournaments_match m ON m.id = s.match_id"""
    )


#: A request: its name and, from the site's facts, the address (web or API, anonymous).
REQUESTS: dict[str, Callable[[dict[str, Any]], str]] = {
    "leaderboard oceans11": lambda f: "/leaderboard/oceans11/",
    "leaderboard bigtwo": lambda f: "/leaderboard/bigtwo/",
    "leaderboard fifteen35": lambda f: "/leaderboard/fifteen35/",
    "leaderboard bigtwo, deepest page": lambda f: f["deep_board"],
    "api leaderboard": lambda f: "/api/leaderboards/bigtwo/?page_size=100",
    "api leaderboard, next page": lambda f: f["board_next"],
    "api matches": lambda f: "/api/matches/?page_size=100",
    "api matches, deep cursor": lambda f: f"/api/matches/?page_size=100&cursor={f['deep']}",
    "api matches of the busiest bot": lambda f: f"/api/matches/?bot={f['busiest']}&page_size=100",
    "api matches of the busiest bot, next": lambda f: f["bot_next"],
    "api matches of a retired version": lambda f: f"/api/matches/?version={f['retired']}",
    "api matches of a bot, done": lambda f: f"/api/matches/?bot={f['busiest']}&status=done",
    "api matches of a tournament": lambda f: f"/api/matches/?tournament={f['cup']}",
    "api matches of a game": lambda f: "/api/matches/?game=bigtwo&page_size=100",
    "api rating history": lambda f: f"/api/bots/{f['busiest']}/rating-history/",
    "bot page (busiest bot)": lambda f: f"/bots/{f['busiest']}/",
    "tournament list": lambda f: "/tournaments/",
}


def facts() -> dict[str, Any]:
    """What the addresses need: the busiest bot, a retired version, a tournament, and the
    deep pages' keys (each as its page's own link makes it)."""
    from django.test import Client

    from bench.service.scale import cursor_at
    from tournaments.models import Bot, BotVersion, Match, Rating, Tournament
    from tournaments.web.board_views import LEADERBOARD_ROWS, board_range, shown_elo

    client = Client()
    busiest = Bot.objects.filter(game="bigtwo").order_by("id").values_list("id", flat=True)[0]
    retired = BotVersion.objects.filter(bot__game="bigtwo").order_by("id")[1].pk
    cup = Tournament.objects.filter(game="bigtwo").order_by("id").values_list("id", flat=True)[0]
    total = Match.objects.count()
    from django.test import RequestFactory

    rows, _ = board_range(RequestFactory().get("/"), "bigtwo")
    ordered = list(rows.select_related("field").order_by("-shown", "bot_id"))
    last: Rating = ordered[-LEADERBOARD_ROWS - 1]
    deep_board = f"/leaderboard/bigtwo/?after={last.bot_id}&elo={shown_elo(last)!r}&place=1"

    def next_of(address: str) -> str:
        link = client.get(address).json()["next"]
        return str(link).split("testserver", 1)[1]

    return {
        "busiest": busiest,
        "retired": retired,
        "cup": cup,
        "deep": cursor_at(total // 4),
        "deep_board": deep_board,
        "board_next": next_of("/api/leaderboards/bigtwo/?page_size=100"),
        "bot_next": next_of(f"/api/matches/?bot={busiest}&page_size=100"),
    }


#: How the statements a request reads with begin (the leaderboard's trends: ``WITH``).
READS = ("SELECT", "WITH")


def statements(address: str) -> tuple[list[tuple[str, Any]], float]:
    """The SELECT (and WITH) statements a GET of ``address`` runs (with their parameters bound as
    Django logged them) and their time (ms)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        answer = Client().get(address)
    assert answer.status_code == 200, (address, answer.status_code)
    found = [q["sql"] for q in captured.captured_queries if q["sql"].startswith(READS)]
    spent = sum(float(q["time"]) for q in captured.captured_queries) * 1000
    return [(sql, None) for sql in found], spent


def explained(sql: str) -> dict[str, Any]:
    """The statement's plan, as run (EXPLAIN ANALYZE: its actual rows too)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return dict(plan[0]["Plan"])


#: The tables that grow with the history.
HISTORY = ("tournaments_match", "tournaments_seat", "tournaments_ratinghistory")


def shape(node: dict[str, Any]) -> str:
    """How a plan reaches the history: each read of a table that grows with it, by which
    index (or ``whole``: a sequential scan), in plan order. A bitmap scan, an index scan
    and an index-only scan of one index are one way in (the planner picks among them by
    how many rows it expects, which the page bounds); the joins with the small tables
    (bots, versions, users) are left out."""
    return ", ".join(reads(node)) or "no history table"


def bounded(read: Sequence[int]) -> bool:
    """Whether a request's rows read stopped growing with the history: at the largest size
    at most READ_GROWTH times what it read at the size before (ten times fewer matches)."""
    return len(read) < 2 or read[-1] <= READ_GROWTH * max(read[-2], 1)


def rows_read(node: dict[str, Any]) -> int:
    """The rows of the history tables an analyzed plan read: each scan's rows returned and
    rows its filter threw away, times its loops (a bitmap scan's index part returns no
    table rows of its own)."""
    own = 0
    if node.get("Relation Name") in HISTORY:
        kept = node.get("Actual Rows", 0)
        thrown = node.get("Rows Removed by Filter", 0) + node.get(
            "Rows Removed by Index Recheck", 0
        )
        own = (kept + thrown) * node.get("Actual Loops", 1)
    return own + sum(rows_read(child) for child in node.get("Plans", []))


def reads(node: dict[str, Any]) -> list[str]:
    found = []
    table = node.get("Relation Name")
    bitmap = [c for c in node.get("Plans", []) if c["Node Type"].startswith("Bitmap")]
    if table in HISTORY:
        index = node.get("Index Name")
        if node["Node Type"] == "Bitmap Heap Scan":
            index = "+".join(
                child.get("Index Name", "?")
                for part in bitmap
                for child in [part, *_walk(part)]
                if child["Node Type"] == "Bitmap Index Scan"
            )
        found.append(f"{table.removeprefix('tournaments_')} by {index or 'whole'}")
    for child in node.get("Plans", []):
        # A bitmap heap scan's index parts are its own way in (above); its other children
        # (a subquery run per row: SubPlan) read on their own.
        if node["Node Type"] != "Bitmap Heap Scan" or child not in bitmap:
            found += reads(child)
    return found


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for child in node.get("Plans", []):
        yield child
        yield from _walk(child)


@contextmanager
def databases(sizes: Sequence[int], keep: bool, prefix: str = KEPT) -> Iterator[list[str]]:
    """A migrated database per size (kept as ``prefix``_size and reused with ``keep``),
    seeded."""
    from bench.service import scale

    original = scale.kept_name
    scale.kept_name = lambda size: f"{prefix}_{size}"  # not the real-site bench's
    try:
        with scale.scratch_databases(sizes, keep) as names:
            for name, size in zip(names, sizes, strict=True):
                scale.use_database(name)
                from tournaments.models import Match

                if not Match.objects.exists():
                    began = time.perf_counter()
                    seed(size)
                    print(f"seeded {size:,} matches in {time.perf_counter() - began:.0f} s")
            yield names
    finally:
        scale.kept_name = original


def measure(sizes: Sequence[int], runs: int, keep: bool, prefix: str = KEPT) -> bool:
    """Plans, costs and SQL times of every request at each size; whether every goal held."""
    from bench.service.scale import load_average, use_database

    print(f"load average {load_average()}", flush=True)
    with databases(sizes, keep, prefix) as names:
        addresses = []
        for name in names:
            use_database(name)
            known = facts()
            addresses.append({request: make(known) for request, make in REQUESTS.items()})
        shapes: dict[str, list[list[str]]] = {r: [] for r in REQUESTS}
        costs: dict[str, list[float]] = {r: [] for r in REQUESTS}
        read: dict[str, list[int]] = {r: [] for r in REQUESTS}
        times: dict[str, list[list[float]]] = {r: [[] for _ in names] for r in REQUESTS}
        for i, name in enumerate(names):
            use_database(name)
            for request in REQUESTS:
                found, _ = statements(addresses[i][request])
                plans = [explained(sql) for sql, _ in found]
                shapes[request].append([shape(p) for p in plans])
                costs[request].append(sum(p["Total Cost"] for p in plans))
                read[request].append(sum(rows_read(p) for p in plans))
        for _ in range(runs):
            for request in REQUESTS:
                for i, name in enumerate(names):
                    use_database(name)
                    times[request][i].append(statements(addresses[i][request])[1])
    return report(sizes, shapes, costs, times, read)


def report(
    sizes: Sequence[int],
    shapes: dict[str, list[list[str]]],
    costs: dict[str, list[float]],
    times: dict[str, list[list[float]]],
    read: dict[str, list[int]],
) -> bool:
    heads = " ".join(f"{f'cost {s:,}':>14}" for s in sizes)
    rows = " ".join(f"{f'rows {s:,}':>13}" for s in sizes)
    sql = " ".join(f"{f'sql ms {s:,}':>14}" for s in sizes)
    print(f"\n{'request':40} {'plan':9} {'reads':9} {heads} {rows} {sql}")
    same_everywhere = all_bounded = True
    for request in REQUESTS:
        same = all(found == shapes[request][0] for found in shapes[request])
        same_everywhere &= same
        fixed = bounded(read[request])
        all_bounded &= fixed
        cost = " ".join(f"{c:14.1f}" for c in costs[request])
        counted = " ".join(f"{n:13,}" for n in read[request])
        spent = " ".join(f"{statistics.median(t):14.2f}" for t in times[request])
        verdict = f"{'same' if same else 'DIFFERS':9} {'bounded' if fixed else 'GROWS':9}"
        print(f"{request:40} {verdict} {cost} {counted} {spent}")
        if not same:
            for size, found in zip(sizes, shapes[request], strict=True):
                print(f"    at {size:,}: {found}")
    total_cost = [sum(costs[r][i] for r in REQUESTS) for i in range(len(sizes))]
    total_sql = [sum(statistics.median(times[r][i]) for r in REQUESTS) for i in range(len(sizes))]
    print(f"\nthe whole set ({len(REQUESTS)} requests), against {sizes[0]:,} matches:")
    for i, size in enumerate(sizes):
        print(
            f"  {size:>9,} matches: planner cost {total_cost[i]:10.1f} "
            f"(ratio {total_cost[i] / total_cost[0]:.2f}), SQL {total_sql[i]:8.1f} ms "
            f"(ratio {total_sql[i] / total_sql[0]:.2f})"
        )
    ratio = total_sql[-1] / total_sql[0]
    print(
        f"plans the same at every size: {'yes' if same_everywhere else 'NO'}; "
        f"reads bounded: {'yes' if all_bounded else 'NO'}; "
        f"SQL ratio {ratio:.2f} (goal <= {GOAL_RATIO}; the planner's estimate "
        f"{total_cost[-1] / total_cost[0]:.2f})"
    )
    from bench.service.scale import load_average

    print(f"load average {load_average()}")
    return same_everywhere and all_bounded and ratio <= GOAL_RATIO


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 50_000, 500_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument(
        "--prefix", default=KEPT, help="the kept databases' names before _size (--keep)"
    )
    options = parser.parse_args()
    configure("bench_plans", broker="memory://", sandbox="local")
    from django.conf import settings

    settings.ALLOWED_HOSTS = ["testserver"]  # Django's test client, in this process
    sys.exit(0 if measure(options.sizes, options.runs, options.keep, options.prefix) else 1)


if __name__ == "__main__":
    main()
