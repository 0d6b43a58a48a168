"""The scheduler under a flood: how long another person waits for a check and a quick match.

The flood of issue 28, on the main job's shape (one worker of 3 processes, the local
sandbox unless ``--sandbox docker``):

- a *flooder* uploads ``--slow-checks`` versions of a bot that takes 0.85 s a move (each
  check then takes minutes) and asks ``--quick`` quick matches of 10 games with it;
- three *organisers* each run a round robin of 23 bots (253 matches each);
- a *newcomer* then, every ``--every`` seconds for ``--minutes``, uploads a new version of
  an ordinary bot (its check) and asks a one-game quick match.

Printed per persona: the newcomer's check (upload to verdict) and quick match (request to
start) waits, p50 and p95; the tournaments' matches in flight at most and played per
minute; the flooder's checks and quick matches begun. Two phases in one run: the service's
scheduler as configured (INTERACTIVE_RESERVE=1, owner cap: half of the rest, BATCH_SHARE=1:
shares by person, issue 42), and the baseline, the same dispatcher with no process kept
idle, none kept for batch work and no cap per owner (INTERACTIVE_RESERVE=0, BATCH_SHARE=0,
INTERACTIVE_OWNER_CAP=1000): interactive work first, owners in turn, as a plain priority
queue would do it. The newcomer's quick match is asked right after its own upload: issue
42's "a quick match asked right after one's own upload starts within 30 s".

Run: ``python -m bench.scheduler.fairness [--minutes 4] [--workers 1] [--processes 3]``
(``--workers 3 --processes 2`` is docker-compose's ``--scale worker=3``; about twice
``--minutes`` plus a minute or two). It makes its own PostgreSQL database (dropped at the
end) and empties Redis db 10 (``--broker`` names another).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import redis

from bench._service import ROOT, configure, scratch_database, worker
from bench._timing import quantiles

BROKER = "redis://127.0.0.1:6379/10"
GAME = "bigtwo"
ORGANISERS = 3
ENTRANTS = 23  # a round robin of 23 at tables of 2: 253 matches
SLOW_MOVE_S = 0.85
BOT = """\
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        time.sleep(%(delay)s)
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        break
# %(tag)s
"""


def version(owner: Any, name: str, delay: float, status: str = "accepted") -> Any:
    """A version of ``owner``'s bot ``name`` (a new one each call: the tag differs)."""
    from tournaments.bots import bot_actions
    from tournaments.models import Bot, BotVersion, bundle_code

    bot, _ = Bot.objects.get_or_create(owner=owner, game=GAME, name=name)
    tag = f"{time.time_ns()}"
    code, digest = bundle_code({"main.py": (BOT % {"delay": delay, "tag": tag}).encode()})
    return bot_actions.add_version(bot, code, digest, BotVersion.Status(status))


def upload(owner: Any, name: str, delay: float) -> Any:
    """A new version uploaded as a person does: stored pending, its check queued."""
    from django.db import transaction

    from tournaments.api import actions
    from tournaments.bots.uploads import Bundle
    from tournaments.models import Bot, bundle_code

    bot, _ = Bot.objects.get_or_create(owner=owner, game=GAME, name=name)
    source = BOT % {"delay": delay, "tag": time.time_ns()}
    code, digest = bundle_code({"main.py": source.encode()})
    with transaction.atomic():
        made, _ = actions.upload_version(bot, Bundle(files={}, code=code, content_hash=digest))
    return made


def quick(owner: Any, seat: Any, games: int) -> Any:
    from django.db import transaction

    from tournaments.api import actions

    with transaction.atomic():
        return actions.request_quick_match(seat, [], ["random"], games, requested_by=owner)


def flood(tag: str, slow_checks: int, quick_matches: int) -> tuple[Any, list[int]]:
    """The flooder's checks and quick matches, then the organisers' tournaments."""
    from django.contrib.auth.models import User
    from django.db import transaction

    from tournaments.competitions import competition_actions

    flooder = User.objects.create(username=f"flooder-{tag}")
    slow = version(flooder, "slow", SLOW_MOVE_S)
    for _ in range(slow_checks):
        upload(flooder, "slow", SLOW_MOVE_S)
    for _ in range(quick_matches):
        quick(flooder, slow, 10)
    cups = []
    for n in range(ORGANISERS):
        owner = User.objects.create(username=f"organiser{n}-{tag}")
        entrants = [version(owner, f"entrant{i}", 0.01) for i in range(ENTRANTS)]
        cup = competition_actions.create_tournament(owner, f"cup {n}", GAME, entrants, table_size=2)
        with transaction.atomic():
            competition_actions.start_tournament(cup.pk)
        cups.append(cup.pk)
    return flooder, cups


class Watch(threading.Thread):
    """Polls the tournaments' matches running, as the newcomer probes."""

    def __init__(self, cups: list[int]) -> None:
        super().__init__(daemon=True)
        self.cups = cups
        self.most = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        from django.db import connection

        from tournaments.models import Match

        running = Match.objects.filter(tournament_id__in=self.cups, status="running")
        while not self.stopped.wait(0.2):
            self.most = max(self.most, running.count())
        connection.close()


def probe(newcomer: Any, seat: Any, every: float, minutes: float) -> tuple[list[float], ...]:
    """The newcomer's check and quick match waits (seconds), one pair every ``every``."""
    from django.utils import timezone

    from tournaments.models import BotVersion, Match

    checks, quicks = [], []
    pending: list[tuple[Any, float]] = []
    asked: list[Any] = []
    end = time.monotonic() + minutes * 60
    while time.monotonic() < end:
        pending.append((upload(newcomer, "newcomer", 0.0), time.monotonic()))
        asked.append(quick(newcomer, seat, 1))
        step = time.monotonic() + every
        while time.monotonic() < step:
            for made, since in list(pending):
                status = BotVersion.objects.filter(pk=made.pk).values_list("status", flat=True)
                if status[0] in (BotVersion.Status.ACCEPTED, BotVersion.Status.REJECTED):
                    checks.append(time.monotonic() - since)
                    pending.remove((made, since))
            time.sleep(0.2)
    now = timezone.now()
    for match in Match.objects.filter(pk__in=[m.pk for m in asked]):
        begun = match.started_at or now  # not begun yet: counted as waiting until now
        quicks.append((begun - match.created_at).total_seconds())
    checks += [time.monotonic() - since for _, since in pending]  # still waiting
    return checks, quicks


def wind_down(tag: str, broker: str = BROKER) -> None:
    """Everything the phase left is ended in the database (its workers are killed)."""
    from tournaments.models import BotVersion, Match, Worker

    Match.objects.filter(status__in=("queued", "running")).update(status="cancelled")
    BotVersion.objects.filter(status__in=("pending", "checking")).update(status="rejected")
    Worker.objects.all().delete()
    redis.Redis.from_url(broker).flushdb()


def phase(tag: str, db: str, folder: Path, options: argparse.Namespace) -> dict[str, Any]:
    from django.conf import settings
    from django.contrib.auth.models import User

    from tournaments.models import BotVersion, Match
    from tournaments.play import dispatch

    env = {"CELERY_SKIP_CHECKS": "1", "WORKER_HEARTBEAT_SECONDS": "1"}
    # The service's defaults, or the baseline's (set for the workers and this process).
    reserve, cap, batch = (0, 1000, 0) if tag == "baseline" else (1, 0, 1)
    env |= {
        "INTERACTIVE_RESERVE": str(reserve),
        "INTERACTIVE_OWNER_CAP": str(cap),
        "BATCH_SHARE": str(batch),
    }
    settings.INTERACTIVE_RESERVE, settings.INTERACTIVE_OWNER_CAP = reserve, cap
    settings.BATCH_SHARE = batch
    with ExitStack() as workers:
        for n in range(options.workers):
            workers.enter_context(worker(f"{tag}-{n}", db, folder, env, options.processes, True))
        while dispatch.capacity() < options.workers * options.processes:
            time.sleep(0.1)
        flooder, cups = flood(tag, options.slow_checks, options.quick)
        newcomer = User.objects.create(username=f"newcomer-{tag}")
        seat = version(newcomer, "newcomer", 0.0)
        watch = Watch(cups)
        watch.start()
        began = time.monotonic()
        before = Match.objects.filter(tournament_id__in=cups, status="done").count()
        checks, quicks = probe(newcomer, seat, options.every, options.minutes)
        played = Match.objects.filter(tournament_id__in=cups, status="done").count() - before
        minutes = (time.monotonic() - began) / 60
        watch.stopped.set()
        starts = [
            float(t["sandbox_start"])
            for t in Match.objects.filter(tournament_id__in=cups, status="done")
            .values_list("timings", flat=True)
            .order_by("-id")[:500]
            if t and "sandbox_start" in t
        ]
        flooded = {
            "checks": BotVersion.objects.filter(bot__owner=flooder, check_sent_at__isnull=False)
            .exclude(status="pending")
            .count(),
            "quick": Match.objects.filter(requested_by=flooder, started_at__isnull=False).count(),
        }
    wind_down(tag, options.broker)
    return {
        "check": checks,
        "quick": quicks,
        "in_flight": watch.most,
        "starts": starts,
        "per_minute": played / minutes,
        "flooder": flooded,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default="local")
    parser.add_argument("--minutes", type=float, default=4.0)
    parser.add_argument("--every", type=float, default=20.0, help="seconds between probes")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--processes", type=int, default=3, help="each worker's")
    parser.add_argument("--slow-checks", type=int, default=27)
    parser.add_argument("--quick", type=int, default=59)
    parser.add_argument(
        "--broker", default=BROKER, help="a Redis database no one else uses (it is emptied)"
    )
    options = parser.parse_args()
    if options.sandbox == "docker":
        os.environ.setdefault("JUDGE_PIPE_ROOT", str(ROOT / "var" / "pipes"))
    os.environ.setdefault("QUOTA_UPLOADS_PER_HOUR", "1000")
    os.environ.setdefault("QUOTA_QUICK_MATCHES_PER_HOUR", "1000")
    configure("bench_fairness", options.broker, options.sandbox)
    from django.conf import settings

    settings.QUOTA_UPLOADS_PER_HOUR = settings.QUOTA_QUICK_MATCHES_PER_HOUR = 1000
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-fairness-") as tmp, scratch_database() as db:
        for tag in ("scheduler", "baseline"):
            results[tag] = phase(tag, db, Path(tmp), options)
    print(
        f"{GAME}: a flooder's {options.slow_checks} slow checks ({SLOW_MOVE_S} s a move) and "
        f"{options.quick} quick matches of 10 games, {ORGANISERS} tournaments of "
        f"{ENTRANTS * (ENTRANTS - 1) // 2} matches; a newcomer probes every {options.every:g} s "
        f"for {options.minutes:g} min; {options.workers} worker(s) of {options.processes} "
        "processes, "
        f"{options.sandbox} sandbox, {os.cpu_count()} cores"
    )
    for tag, label in (("scheduler", "scheduler"), ("baseline", "baseline (no reserve, no cap)")):
        r = results[tag]
        print(f"  {label}")
        print(f"    newcomer's check, upload to verdict:   {quantiles(r['check'])}")
        print(f"    newcomer's quick match, ask to start:  {quantiles(r['quick'])}")
        print(
            f"    tournaments: at most {r['in_flight']} matches in flight, "
            f"{r['per_minute']:.1f} played a minute"
        )
        print(f"    tournament matches' bots started in:  {quantiles(r['starts'])}")
        print(
            f"    flooder: {r['flooder']['checks']} checks and {r['flooder']['quick']} quick "
            "matches begun"
        )
    ours, theirs = results["scheduler"], results["baseline"]
    for kind in ("check", "quick"):
        if ours[kind] and theirs[kind]:
            ratio = statistics.median(theirs[kind]) / max(statistics.median(ours[kind]), 0.01)
            print(f"  newcomer's {kind} p50: {ratio:.1f}x shorter than the baseline's")


if __name__ == "__main__":
    main()
