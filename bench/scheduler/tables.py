"""Silent people at tables and another user's quick match: does it still start at once?

Issue 42: five accounts sat at tables and never answered (a minute a move, three more
minutes of bank), each table held one of the 3 worker processes, and another user's quick
match waited 244 s to start. Tables now have capacity of their own (a thread each on the
tables worker, TABLE_SLOTS of them); this measures it on the main job's shape: one worker
of ``--processes`` processes (scripts/run: cores + 1) and the tables worker
(``-Q tables --pool threads --concurrency TABLE_SLOTS``), the Docker sandbox unless
``--sandbox local``, house bots in the sandbox.

Two phases on the same workers, one run:

- *baseline*: no tables; another user asks a one-game quick match (their bot against a
  house bot) every ``--every`` seconds for ``--minutes``;
- *tables*: ``--tables`` people (accounts of their own) sit at tables against a house bot
  and never answer; once every table is being played, the same probes.

Printed per phase: the quick matches' waits (asked to started) p50 and p95, the ratio of
the tables phase's to the baseline's, how long each table took to be seated, and how many
tables were being played at the fewest while the probes ran (all of them: the people
were still thinking). The people then leave; the engine plays their seats to the end.

Run: ``python -m bench.scheduler.tables [--minutes 2] [--tables 5] [--sandbox docker]``
(about twice ``--minutes`` plus a minute). It makes its own PostgreSQL database (dropped at
the end) and empties the Redis database BENCH_TABLES_REDIS_URL (default db 12).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import redis

from bench._service import ROOT, configure, scratch_database, worker
from bench._timing import quantiles

BROKER = os.environ.get("BENCH_TABLES_REDIS_URL", "redis://127.0.0.1:6379/12")
GAME = "bigtwo"
BOT = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        break
"""


def accepted_bot(owner: Any) -> Any:
    """An accepted version of ``owner``'s bot that plays the first legal action at once."""
    from tournaments.bots import bot_actions
    from tournaments.models import Bot, BotVersion, bundle_code

    bot = Bot.objects.create(owner=owner, game=GAME, name="prober")
    code, digest = bundle_code({"main.py": BOT.encode()})
    return bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def quick(owner: Any, seat: Any) -> Any:
    from django.db import transaction

    from tournaments.api import actions

    with transaction.atomic():
        return actions.request_quick_match(seat, [], ["random"], 1, requested_by=owner)


def probe(owner: Any, seat: Any, every: float, minutes: float, tables: list[int]) -> Any:
    """The quick matches' waits, asked to started and asked to over (seconds; one not
    begun or not over counts until now), and the fewest of ``tables`` being played at
    any moment while they were asked."""
    from django.utils import timezone

    from tournaments.models import Match

    asked: list[int] = []
    fewest = len(tables)
    running = Match.objects.filter(pk__in=tables, status="running")
    end = time.monotonic() + minutes * 60
    while time.monotonic() < end:
        asked.append(quick(owner, seat).pk)
        step = time.monotonic() + every
        while time.monotonic() < step:
            if tables:
                fewest = min(fewest, running.count())
            time.sleep(0.5)
    started = Match.objects.filter(pk__in=asked, started_at__isnull=False)
    while started.count() < len(asked) and time.monotonic() < end + 120:
        time.sleep(0.5)  # the last probes' start (at most two minutes more)
    while Match.objects.filter(pk__in=asked, finished_at__isnull=True).exists():
        if time.monotonic() > end + 240:
            break
        time.sleep(0.5)  # and their end, to show they were played through
    now = timezone.now()
    matches = list(Match.objects.filter(pk__in=asked))
    waits = [((m.started_at or now) - m.created_at).total_seconds() for m in matches]
    over = [((m.finished_at or now) - m.created_at).total_seconds() for m in matches]
    return waits, over, fewest


def sit_silent(count: int, tag: str) -> tuple[list[int], list[float]]:
    """``count`` people at tables who never answer; once all are being played, the
    tables and how long each took from asking to being seated (seconds)."""
    from django.contrib.auth.models import User

    from tournaments.models import Match
    from tournaments.play import human_match

    tables = [
        human_match.request_human_match(
            User.objects.create(username=f"{tag}-person{n}"), GAME, ["random"]
        ).pk
        for n in range(count)
    ]
    deadline = time.monotonic() + 180
    seated = Match.objects.filter(pk__in=tables, started_at__isnull=False)
    while seated.count() < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {seated.count()} of {count} tables were seated in 180 s")
        time.sleep(0.2)
    waits = [(m.started_at - m.created_at).total_seconds() for m in seated]
    return tables, waits


def leave_all(tables: list[int]) -> dict[str, int]:
    """The people leave; the engine plays their seats to the end (bots closed cleanly).
    How the tables ended: their statuses counted, and those whose only fault is the
    person's seat closed (the bots in the sandbox played them through)."""
    from tournaments.models import Match
    from tournaments.play import human_match

    for match in Match.objects.filter(pk__in=tables):
        with contextlib.suppress(ValueError):  # over already
            human_match.leave_table(match)
    over = Match.objects.filter(pk__in=tables, status__in=("queued", "running"))
    deadline = time.monotonic() + 120
    while over.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    ended: dict[str, int] = {}
    for match in Match.objects.filter(pk__in=tables):
        ended[match.status] = ended.get(match.status, 0) + 1
        left = [(f["bot"], f["kind"]) for f in match.faults] == [(0, "closed")]
        ended["left, no other fault"] = ended.get("left, no other fault", 0) + left
    return ended


def wait_idle() -> None:
    """Every quick match of the previous phase is over (its process is free)."""
    from tournaments.models import Match

    deadline = time.monotonic() + 180
    while Match.objects.filter(status__in=("queued", "running")).exists():
        if time.monotonic() > deadline:
            raise SystemExit("the workers did not finish the last phase's matches in 180 s")
        time.sleep(0.5)


def run(db: str, folder: Path, options: argparse.Namespace) -> dict[str, Any]:
    from django.contrib.auth.models import User

    from tournaments.play import dispatch

    env = {"CELERY_SKIP_CHECKS": "1", "WORKER_HEARTBEAT_SECONDS": "1"}
    results: dict[str, Any] = {}
    with ExitStack() as workers:
        workers.enter_context(worker("bots", db, folder, env, options.processes, kill=True))
        workers.enter_context(tables_worker(db, folder, env, options.slots))
        while dispatch.capacity() < options.processes:
            time.sleep(0.1)
        prober = User.objects.create(username="prober")
        seat = accepted_bot(prober)
        waits, over, _ = probe(prober, seat, options.every, options.minutes, [])
        results["baseline"] = {"quick": waits, "over": over, "capacity": dispatch.capacity()}
        wait_idle()
        tables, seated = sit_silent(options.tables, "bench")
        capacity = dispatch.capacity()
        waits, over, fewest = probe(prober, seat, options.every, options.minutes, tables)
        results["tables"] = {
            "quick": waits,
            "over": over,
            "seated": seated,
            "fewest": fewest,
            "capacity": capacity,
        }
        results["tables"]["ended"] = leave_all(tables)
        wait_idle()
    redis.Redis.from_url(BROKER).flushdb()
    return results


def tables_worker(db: str, folder: Path, env: dict[str, str], slots: int) -> Any:
    """The tables worker as scripts/run starts it: -Q tables, a thread per slot."""
    return worker(
        "tables", db, folder, {**env, "TABLE_SLOTS": str(slots)}, slots, kill=True,
        extra=("-Q", "tables", "--pool", "threads"),
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default="docker")
    parser.add_argument("--minutes", type=float, default=2.0, help="of probes, each phase")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between probes")
    parser.add_argument("--processes", type=int, default=(os.cpu_count() or 2) + 1)
    parser.add_argument("--tables", type=int, default=5, help="silent people at tables")
    parser.add_argument("--slots", type=int, default=8, help="TABLE_SLOTS")
    options = parser.parse_args()
    if options.tables > options.slots:
        parser.error(f"--tables {options.tables} is more than --slots {options.slots}")
    if options.sandbox == "docker":
        os.environ.setdefault("JUDGE_PIPE_ROOT", str(ROOT / "var" / "pipes"))
    os.environ.setdefault("INTERACTIVE_RESERVE", "1")  # the service's default
    os.environ.setdefault("QUOTA_QUICK_MATCHES_PER_HOUR", "1000")
    os.environ["TABLE_SLOTS"] = str(options.slots)
    os.environ["JUDGE_TABLE_REDIS_URL"] = BROKER
    configure("bench_tables", BROKER, options.sandbox)
    redis.Redis.from_url(BROKER).flushdb()
    with tempfile.TemporaryDirectory(prefix="bench-tables-") as tmp, scratch_database() as db:
        results = run(db, Path(tmp), options)
    load = os.getloadavg()[0]
    print(
        f"{GAME}: {options.tables} people at tables who never answer (a minute a move, "
        f"three of bank), another user's one-game quick match every {options.every:g} s for "
        f"{options.minutes:g} min a phase; one worker of {options.processes} processes and "
        f"the tables worker ({options.slots} threads), {options.sandbox} sandbox, "
        f"{os.cpu_count()} cores, load {load:.1f}"
    )
    base, tables = results["baseline"], results["tables"]
    print(f"  baseline (no tables), quick match asked to started:  {quantiles(base['quick'])}")
    print(
        f"  {options.tables} silent tables, quick match asked to started: "
        f"{quantiles(tables['quick'])}"
    )
    print(f"  baseline, quick match asked to over:                 {quantiles(base['over'])}")
    print(f"  with the silent tables, quick match asked to over:    {quantiles(tables['over'])}")
    print(f"  tables seated (asked to being played):               {quantiles(tables['seated'])}")
    print(
        f"  tables being played at the fewest while probing: {tables['fewest']} of "
        f"{options.tables}; processes counted for bots: {base['capacity']} without tables, "
        f"{tables['capacity']} with them"
    )
    ended = ", ".join(f"{n} {what}" for what, n in sorted(tables["ended"].items()))
    print(f"  the tables, once their people left: {ended}")
    if base["quick"] and tables["quick"]:
        ratio = statistics.median(tables["quick"]) / max(statistics.median(base["quick"]), 0.01)
        worst = max(tables["quick"])
        print(f"  quick match p50 with tables / without: {ratio:.2f}x; longest wait {worst:.1f} s")


if __name__ == "__main__":
    main()
