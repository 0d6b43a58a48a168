"""Every page and API answer at a big site's size, against the same at a small one.

Seeds two PostgreSQL databases with sites whose rows are real (bench/service/_seeded_site.py:
real matches re-seated, with their games, units, logs, timings and replay files, by COPY;
ratings by the service's recompute): the baseline history (--baseline, 5,000 matches) and
the big one (--matches, 500,000), with the same users, bots and tournaments. Each request
then runs on both in turns (so that a change in the machine's load touches both sizes
alike), and the bench prints p50 and p95 (ms, warm, in this process through Django's test
client: no network), the queries it ran, and the ratio big/small of the p95; then
recording a result (lease.finish_match) and the lease reaper the same way; then results
recorded by 3 worker processes at once on each size (bench/service/_site_writes.py: p50/p95 and
their ratios); this process's memory across the requests, and the bytes a match keeps
(database rows and indexes, replay files and the disk they take).

Run: ``python -m bench.service.scale [--matches N] [--baseline N] [--runs R] [--keep]
[--only WORD]`` (``--matches 50000`` for a quick run). Needs the PostgreSQL server of
scripts/bootstrap; the two scratch databases are dropped at the end, unless ``--keep``:
then they are named for their size (``bench_scale_keep_N``), left in place with their
replay files (var/bench-scale/), and a later ``--keep`` run migrates and reuses them
instead of seeding again (``--drop`` drops kept ones). ``--only`` measures only the
requests whose name holds WORD (repeatable).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._service import configure

#: What the issue asks: p95 under this at the big size, and within this ratio of small.
GOAL_MS = 100.0
GOAL_RATIO = 1.5


@dataclass(frozen=True)
class Figure:
    """Wall-clock p50/p95 (ms), the queries of one call, and the medians of this process's
    CPU time and of the time spent in queries: on a loaded machine the wall clock also
    counts the turns waited for a core, the CPU time does not (it says what the code
    costs here, the query time what the database costs)."""

    p50: float
    p95: float
    queries: int
    cpu: float = float("nan")
    sql: float = float("nan")


def timed(calls: dict[str, Callable[[], Any]], runs: int) -> dict[str, Figure]:
    """Figures over ``runs`` warm calls of each database's call, taking turns (so a
    change in the machine's load touches both sizes alike)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in calls}
    queries = {}
    for _ in range(runs):
        for name, call in calls.items():
            use_database(name)
            call()  # warm: the connection, caches, the first compile of templates
            with CaptureQueriesContext(connection) as captured:
                start, cpu = time.perf_counter(), time.process_time()
                call()
                wall, used = time.perf_counter() - start, time.process_time() - cpu
            sql = sum(float(q["time"]) for q in captured.captured_queries)
            times[name].append((wall * 1000, used * 1000, sql * 1000))
            queries[name] = len(captured)
    figures = {}
    for name, found in times.items():
        walls = sorted(wall for wall, _, _ in found)
        p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
        figures[name] = Figure(
            statistics.median(walls),
            p95,
            queries[name],
            statistics.median(cpu for _, cpu, _ in found),
            statistics.median(sql for _, _, sql in found),
        )
    return figures


def use_database(name: str) -> None:
    """Point Django's connection at the scratch database ``name`` (and the replay
    storage at its folder, if it has one: REPLAYS)."""
    from django.conf import settings
    from django.db import connection

    if connection.settings_dict["NAME"] != name:
        connection.close()
        connection.settings_dict["NAME"] = name
    if name in REPLAYS:
        settings.REPLAY_ROOT = REPLAYS[name]


#: Each scratch database's replay folder.
REPLAYS: dict[str, Path] = {}


def cursor_at(position: int) -> str:
    """A cursor of the match list (newest first) starting below match ``position``, signed
    as the API signs the cursors of its next links (tournaments/api/pagination.py)."""
    from django.core import signing

    from tournaments.api.pagination import SALT

    return signing.dumps([0, False, str(position), ["-id"]], salt=SALT)


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
    cup = Match.objects.values_list("tournament_id", flat=True).get(pk=replayed)

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
        "tournament page": get(anonymous, f"/tournaments/{cup}/"),
        "tournament live part": get(anonymous, f"/tournaments/{cup}/?part=live"),
        "api standings": get(anonymous, f"/api/tournaments/{cup}/standings/"),
        "api head-to-head": get(anonymous, f"/api/tournaments/{cup}/head-to-head/"),
        "match page": get(anonymous, f"/matches/{replayed}/"),
        "admin match list": get(admin, "/admin/tournaments/match/"),
        "admin rating history": get(admin, "/admin/tournaments/ratinghistory/"),
        "replay (api, gzip)": get(anonymous, f"/api/matches/{replayed}/replay/", zipped=True),
        "replay frames": get(anonymous, f"/matches/{replayed}/frames/?game=1&seat=all", True),
    }


def recording(facts: dict[str, Any]) -> Callable[[], Any]:
    """lease.finish_match of a real result between two of the busiest bots."""
    from bench.service._site_writes import recorder

    return recorder(facts["busy_pairs"][0])


def resident_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def load_average() -> str:
    """The machine's load average (1, 5, 15 minutes): the measurements' noise."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


#: Where kept databases' replay files live (beside the databases named for their size).
KEPT_REPLAYS = Path(__file__).resolve().parents[2] / "var" / "bench-scale"


def kept_name(size: int) -> str:
    return f"bench_scale_keep_{size}"


@contextmanager
def scratch_databases(sizes: Sequence[int], keep: bool = False) -> Iterator[list[str]]:
    """A migrated database per size; their names. Fresh and dropped at the end, or with
    ``keep`` named for the size, reused if there (migrated to the code's models) and kept."""
    from django.db import connection

    original = connection.settings_dict["NAME"]
    made = []
    try:
        for size in sizes:
            name = kept_name(size) if keep else f"bench_scale_{os.getpid()}_{size}"
            connection.settings_dict["TEST"]["NAME"] = name
            made.append(
                connection.creation.create_test_db(
                    verbosity=0, autoclobber=True, keepdb=keep, serialize=False
                )
            )
        yield made
    finally:
        for name in made if not keep else []:
            use_database(name)
            connection.creation.destroy_test_db(original, verbosity=0)
        if keep:
            use_database(original)


def drop_kept(sizes: Sequence[int], connection: Any = None) -> None:
    """Drop the kept databases of these sizes (those that exist) and their replay files.

    The statements go through the server's maintenance database (Django's no-database
    cursor, as creating a test database does): the configured one ("cardjudge") need not
    exist on a machine that only ever ran benches."""
    import shutil

    from django.db import connection as default

    with (connection or default)._nodb_cursor() as cursor:
        for size in sizes:
            cursor.execute(f'DROP DATABASE IF EXISTS "{kept_name(size)}"')
            shutil.rmtree(KEPT_REPLAYS / kept_name(size), ignore_errors=True)
            print(f"dropped {kept_name(size)} and its replay files (if they were there)")


#: The seeder's rating processes (its games in parallel, the replays beside: _seeded_site).
PROCESSES = 2


def seeded(matches: int, processes: int = PROCESSES) -> dict[str, Any]:
    """Seed the current database with ``matches`` matches (unless a kept run already did);
    facts the requests need, and the bytes a match keeps."""
    from django.conf import settings
    from django.contrib.auth.models import User

    from bench.service._seeded_site import Shape, seed
    from bench.service._site_writes import busy_pairs, storage
    from tournaments.models import Match, Rating

    if User.objects.filter(username="bench-admin").exists():
        print(f"reusing the kept database of {matches} matches", flush=True)
    else:
        started = time.perf_counter()
        seed(Shape(matches), processes=processes)
        print(f"seeded {matches} matches in {time.perf_counter() - started:.0f} s", flush=True)
        User.objects.create_superuser("bench-admin", password="bench admin password")
    busiest = Rating.objects.order_by("-matches", "bot_id").values_list("bot_id", flat=True)[0]
    facts: dict[str, Any] = {"busiest_bot": busiest, "storage": storage(settings.REPLAY_ROOT)}
    last = Match.objects.filter(game="bigtwo", tournament__isnull=False).order_by("-id")
    facts["replayed_match"] = last.values_list("id", flat=True)[0]
    facts["busy_pairs"] = busy_pairs(WORKERS)
    return facts


#: Workers recording results at once.
WORKERS = 3


def measure(
    sizes: tuple[int, int], runs: int, keep: bool, only: Sequence[str], replays: Path
) -> tuple[list[dict[str, Figure]], list[dict[str, Any]]]:
    """Figures of every request at each size (requests taking turns between the two
    databases), and the facts of each (the writes of concurrent workers among them);
    each database's replay files go in a folder of ``replays`` named for it."""
    from bench.service._site_writes import concurrently
    from tournaments.config.collector import tune_for_requests
    from tournaments.play import lease

    with scratch_databases(sizes, keep) as names:
        facts, calls = [], []
        for name, size in zip(names, sizes, strict=True):
            REPLAYS[name] = replays / name
            use_database(name)
            facts.append(seeded(size))
            found = requests(facts[-1])
            found["record a result (finish_match)"] = recording(facts[-1])
            found["lease reaper"] = lease.reap_matches
            calls.append(found)
        tune_for_requests()  # as tournaments/config/wsgi.py does in a served process
        memory = resident_mb()
        figures: list[dict[str, Figure]] = [{}, {}]
        for request in calls[0]:
            if only and not any(word in request for word in only):
                continue
            turns = {name: found[request] for name, found in zip(names, calls, strict=True)}
            pair = timed(turns, runs)
            for i, name in enumerate(names):
                figures[i][request] = pair[name]
        facts[-1]["memory"] = (memory, resident_mb())
        if not only or any("workers" in word for word in only):
            sites = [(n, REPLAYS[n], f["busy_pairs"]) for n, f in zip(names, facts, strict=True)]
            for site, figure in zip(facts, concurrently(sites, runs), strict=True):
                site["workers"] = figure
    return figures, facts


def report(small: dict[str, Figure], big: dict[str, Figure], sizes: tuple[int, int]) -> None:
    print(
        f"\n{'request':34} {'p50/p95 ms at ' + str(sizes[0]):>19} {'at ' + str(sizes[1]):>17}"
        f" {'cpu ms':>11} {'sql ms':>11} {'queries':>7} {'p95 ratio':>9}  goal"
    )
    for name, base in small.items():
        now = big[name]
        ratio = now.p95 / base.p95 if base.p95 else float("nan")
        met = now.p95 < GOAL_MS and ratio <= GOAL_RATIO
        print(
            f"{name:34} {base.p50:8.1f} / {base.p95:7.1f} {now.p50:7.1f} / {now.p95:7.1f}"
            f" {base.cpu:5.1f}/{now.cpu:<5.1f} {base.sql:5.1f}/{now.sql:<5.1f}"
            f" {base.queries:>3}/{now.queries:<3} {ratio:9.2f}  {'met' if met else 'NOT MET'}"
        )
    print(
        "(cpu: median CPU time of this process per request, 5k/500k; sql: median time in "
        "queries, 5k/500k)"
    )


def report_writes(facts: list[dict[str, Any]], sizes: tuple[int, int]) -> None:
    """The concurrent workers' figures at both sizes, and the bytes a match keeps."""
    if "workers" in facts[0]:
        (s50, s95), (b50, b95) = facts[0]["workers"], facts[1]["workers"]
        met = "met" if max(b50 / s50, b95 / s95) <= WRITE_RATIO else "NOT MET"
        print(
            f"\n{WORKERS} workers recording at once (finish_match, ms): p50/p95 "
            f"{s50:.1f} / {s95:.1f} at {sizes[0]}, {b50:.1f} / {b95:.1f} at {sizes[1]}; "
            f"ratio {b50 / s50:.2f} / {b95 / s95:.2f} (goal {WRITE_RATIO}: {met})"
        )
    for size, found in zip(sizes, facts, strict=True):
        kept = found["storage"]
        games = ", ".join(f"{g} {b:.0f}" for g, b in sorted(kept.per_game.items()))
        print(
            f"bytes per match at {size}: database {kept.history:.0f} (history tables) + "
            f"{kept.field:.0f} (bots, ratings, records); replay files {kept.files:.0f} "
            f"({kept.disk:.0f} on disk); replay bytes per game gzipped: {games}"
        )


#: What the issue asks of recording at the big size against the small one (p50, p95).
WRITE_RATIO = 1.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500_000)
    parser.add_argument("--baseline", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep (or reuse) the databases")
    parser.add_argument("--drop", action="store_true", help="drop kept databases and stop")
    parser.add_argument("--only", action="append", default=[], help="requests named so")
    args = parser.parse_args()
    configure("bench_scale", broker="", sandbox="local")
    from django.conf import settings

    settings.ALLOWED_HOSTS = ["testserver"]  # Django's test client, in this process
    settings.DEBUG = False  # as served: no query log kept in memory
    sizes = (args.baseline, args.matches)
    if args.drop:
        drop_kept(sizes)
        return
    print(f"load average at the start: {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-scale-replays-") as folder:
        replays = KEPT_REPLAYS if args.keep else Path(folder)
        (small, big), facts = measure(sizes, args.runs, args.keep, args.only, replays)
    report(small, big, sizes)
    report_writes(facts, sizes)
    print(f"load average at the end: {load_average()}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    before, after = facts[-1]["memory"]
    print(f"\nresident memory across all requests: {before:.0f} -> {after:.0f} MB")
    print(f"peak memory of this process (seeding included): {peak:.0f} MB")


if __name__ == "__main__":
    main()
