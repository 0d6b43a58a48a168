"""Every page and API answer at a big site's size, against the same at a small one.

Seeds PostgreSQL (bench/_bigsite.py: COPY, a few minutes for 500,000 matches) twice: the
baseline history (--baseline, 5,000 matches) and the big one (--matches, 500,000), with
the same users, bots and tournaments. For each request it prints p50 and p95 (ms, warm,
in this process through Django's test client: no network), the queries it ran, and the
ratio big/small; then recording a result (services.finish_match) and the lease reaper
the same way, this process's peak memory, and bytes stored per match (database rows, and
replay files per game, gzipped).

Run: ``python -m bench.bench_scale [--matches N] [--baseline N] [--runs R]``
(``--matches 50000`` for a quick run). Needs the PostgreSQL server of scripts/bootstrap;
each size gets its own scratch database, dropped at the end.
"""

from __future__ import annotations

import argparse
import base64
import json
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bench._service import configure, scratch_database

#: What the issue asks: p95 under this at the big size, and within this ratio of small.
GOAL_MS = 100.0
GOAL_RATIO = 1.5


@dataclass(frozen=True)
class Figure:
    p50: float
    p95: float
    queries: int


def timed(call: Callable[[], Any], runs: int) -> Figure:
    """p50/p95 in ms over ``runs`` warm calls, and the queries of the last one."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    call()  # warm: caches, the first compile of templates
    times = []
    for _ in range(runs):
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return Figure(statistics.median(times), p95, len(captured))


def cursor_at(position: int) -> str:
    """A cursor of the match list (newest first) starting below match ``position``."""
    return base64.b64encode(f"p={position}".encode()).decode()


def requests(facts: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """Each measured request, by name."""
    from django.contrib.auth.models import User
    from django.test import Client

    from tournaments.models import Match, Seat

    anonymous, admin = Client(), Client()
    admin.force_login(User.objects.get(username="bench-admin"))
    total = Match.objects.count()
    deep = total - 100 * 4000 if total > 100 * 4000 else total // 2
    busiest = facts["busiest_bot"]
    version = Seat.objects.filter(bot_id=busiest).values_list("version_id", flat=True).first()
    replayed = facts["replayed_match"]

    def get(client: Client, url: str, zipped: bool = False) -> Callable[[], Any]:
        headers = {"Accept-Encoding": "gzip"} if zipped else {}

        def call() -> Any:
            response = client.get(url, headers=headers)
            assert response.status_code == 200, (url, response.status_code)
            return response

        return call

    return {
        "leaderboard oceans11": get(anonymous, "/leaderboard/oceans11/"),
        "leaderboard bigtwo": get(anonymous, "/leaderboard/bigtwo/"),
        "leaderboard fifteen35": get(anonymous, "/leaderboard/fifteen35/"),
        "api leaderboard": get(anonymous, "/api/leaderboards/bigtwo/?page_size=100"),
        "api matches, first page": get(anonymous, "/api/matches/?page_size=100"),
        "api matches, page 4000": get(
            anonymous, f"/api/matches/?page_size=100&cursor={cursor_at(deep)}"
        ),
        "api matches of a popular version": get(anonymous, f"/api/matches/?version={version}"),
        "api rating history": get(anonymous, f"/api/bots/{busiest}/rating-history/"),
        "bot page (busiest bot)": get(anonymous, f"/bots/{busiest}/"),
        "tournament list": get(anonymous, "/tournaments/"),
        "admin match list": get(admin, "/admin/tournaments/match/"),
        "admin rating history": get(admin, "/admin/tournaments/ratinghistory/"),
        "replay (api, gzip)": get(anonymous, f"/api/matches/{replayed}/replay/", zipped=True),
        "replay frames": get(anonymous, f"/matches/{replayed}/frames/?game=1&seat=all", True),
    }


def recording(facts: dict[str, Any]) -> Callable[[], Any]:
    """services.finish_match of a fresh rated match between two of the busiest bots."""
    from tournaments import services
    from tournaments.models import Match, Seat

    outcome = {"scores": [1, 0], "places": [1, 2], "games": [], "record": facts["record"]}
    bots = facts["busy_pair"]

    def call() -> None:
        match = Match.objects.create(game="oceans11", rated=True, status=Match.Status.QUEUED)
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version_id=2 * bot - 1, bot_id=bot)
            for i, bot in enumerate(bots)
        )
        attempt = services.claim_match(match.pk, "bench")
        assert attempt is not None and services.finish_match(match.pk, attempt, outcome)

    return call


def sample_records() -> dict[str, dict[str, Any]]:
    """One real match record per game (house bots), for the replay figures."""
    from judge.referee import BotInfo, MatchSpec, play_match

    found = {}
    for game, players in (("oceans11", 2), ("bigtwo", 4), ("fifteen35", 3)):
        spec = MatchSpec(game=game, seed=5, players=players, duplicate=True)
        bots = [BotInfo(f"bot{i}") for i in range(players)]
        outcome = play_match(spec, bots, partial(random_player, game))
        found[game] = outcome.record
    return found


def resident_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def random_player(game: str, seat: int) -> Any:
    from judge.bots import house_policy
    from judge.players import PolicyChannel

    return PolicyChannel(house_policy(game, "random", seat))


def storage_bytes(matches: int) -> float:
    from django.db import connection

    tables = ("match", "seat", "ratinghistory", "rating", "replay")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT SUM(pg_total_relation_size(t)) FROM unnest(%s::text[]) AS t",
            [[f"tournaments_{t}" for t in tables]],
        )
        (total,) = cursor.fetchone()
    return float(total) / matches


def measure(matches: int, runs: int) -> tuple[dict[str, Figure], dict[str, Any]]:
    """Seed a scratch database with ``matches`` matches and time every request on it."""
    from django.contrib.auth.models import User

    from bench._bigsite import Shape, seed
    from tournaments import replay_store, services
    from tournaments.models import Match

    with scratch_database():
        started = time.perf_counter()
        facts = seed(Shape(matches))
        print(f"seeded {matches} matches in {time.perf_counter() - started:.0f} s", flush=True)
        per_match = storage_bytes(matches)
        User.objects.create_superuser("bench-admin", password="bench admin password")
        records = sample_records()
        facts["record"] = records["oceans11"]
        last = Match.objects.filter(game="bigtwo").order_by("-id").values_list("id", flat=True)
        facts["replayed_match"] = last[0]
        replay_store.stored_replay(last[0], records["bigtwo"]).save()
        busy = Match.objects.filter(game="oceans11").order_by("-id").first()
        assert busy is not None
        facts["busy_pair"] = [s.bot_id for s in busy.seats.order_by("index")]
        before = resident_mb()
        figures = {name: timed(call, runs) for name, call in requests(facts).items()}
        figures["record a result (finish_match)"] = timed(recording(facts), runs)
        figures["lease reaper"] = timed(services.reap_matches, runs)
        facts["memory"] = (before, resident_mb())
        facts["bytes_per_match"] = per_match
        facts["replay_bytes"] = {
            game: (len(json.dumps(r)), len(replay_store.compress(r)), len(r["games"]))
            for game, r in records.items()
        }
    return figures, facts


def report(small: dict[str, Figure], big: dict[str, Figure], sizes: tuple[int, int]) -> None:
    print(
        f"\n{'request':38} {'p50/p95 ms at ' + str(sizes[0]):>22} "
        f"{'p50/p95 ms at ' + str(sizes[1]):>24} {'queries':>9} {'p95 ratio':>9}  goal"
    )
    for name, base in small.items():
        now = big[name]
        ratio = now.p95 / base.p95 if base.p95 else float("nan")
        met = now.p95 < GOAL_MS and ratio <= GOAL_RATIO
        print(
            f"{name:38} {base.p50:10.1f} / {base.p95:8.1f} {now.p50:12.1f} / {now.p95:8.1f} "
            f"{base.queries:>4}/{now.queries:<4} {ratio:9.2f}  {'met' if met else 'NOT MET'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500_000)
    parser.add_argument("--baseline", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    configure("bench_scale", broker="", sandbox="local")
    from django.conf import settings

    settings.ALLOWED_HOSTS = ["testserver"]  # Django's test client, in this process
    settings.DEBUG = False  # as served: no query log kept in memory
    with tempfile.TemporaryDirectory(prefix="bench-scale-replays-") as folder:
        settings.REPLAY_ROOT = Path(folder)
        small, small_facts = measure(args.baseline, args.runs)
        big, facts = measure(args.matches, args.runs)
    report(small, big, (args.baseline, args.matches))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for size, found in ((args.baseline, small_facts), (args.matches, facts)):
        before, after = found["memory"]
        print(f"\nresident memory across the requests at {size}: {before:.0f} -> {after:.0f} MB")
    print(f"peak memory of this process (seeding included): {peak:.0f} MB")
    print(f"database bytes per match (matches, seats, rating rows, history): "
          f"{facts['bytes_per_match']:.0f}")  # fmt: skip
    for game, (raw, packed, games) in facts["replay_bytes"].items():
        print(
            f"replay {game:10} {raw / games:8.0f} B/game as JSON, {packed / games:6.0f} B/game "
            f"gzipped ({raw / packed:.1f}x)"
        )


if __name__ == "__main__":
    main()
