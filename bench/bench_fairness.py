"""Fair scheduling: how long a small user waits while another floods the judge.

One user starts a big round robin (Big Two, the seed bots, 60 matches). Once it is under
way, a second user uploads a new version (its check) and starts a 4-match tournament. The
figure is the small user's wait counted in matches: the flood's matches that started
after the request and before the check was claimed (or before the small tournament's
last match started). Two workers (one process each) play, first with the service's fair
scheduling (TOURNAMENT_SLOTS=1: one process always free for the interactive queue, slots
shared by owner), then, as the baseline in the same run, with every task in one FIFO
queue, as before tournaments.dispatch.

Run: ``python -m bench.bench_fairness [--sandbox docker|local]`` (a few minutes). It
makes its own PostgreSQL database (dropped at the end) and empties Redis db 10.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import redis

from bench._service import ROOT, configure, scratch_database, worker

BROKER = "redis://127.0.0.1:6379/10"
GAME = "bigtwo"
FLOOD_ROUNDS = 10  # 6 matches a round with the four seed bots
SMALL_ROUNDS = 4  # two bots: 4 matches
TIMEOUT_S = 1800.0


def wait(condition: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"timed out waiting for {what}; see the worker logs")
        time.sleep(0.05)


def started(tournament_id: int) -> int:
    from tournaments.models import Match

    return Match.objects.filter(tournament_id=tournament_id, started_at__isnull=False).count()


def start(owner: Any, name: str, entrants: list[Any], rounds: int) -> int:
    from django.db import transaction

    from tournaments import services

    tournament = services.create_tournament(
        owner, name, GAME, entrants, table_size=2, rounds=rounds, seed=5
    )
    with transaction.atomic():
        services.start_tournament(tournament.pk)
    return tournament.pk


def fifo(on: bool) -> None:
    """Send everything, in order, to one queue (the baseline), or restore the service's way."""
    from django.conf import settings

    from tournaments import checks, dispatch

    if on:
        settings.TOURNAMENT_SLOTS = 10**6
        dispatch.INTERACTIVE = dispatch.TOURNAMENTS
        checks.check_version.delay = lambda version_id: checks.check_version.apply_async(  # type: ignore[method-assign]
            (version_id,), queue=dispatch.TOURNAMENTS
        )
    else:
        settings.TOURNAMENT_SLOTS = 1
        dispatch.INTERACTIVE = "interactive"
        checks.check_version.__dict__.pop("delay", None)


def phase(label: str, db: str, folder: Path) -> tuple[int, int]:
    """The flood's matches started ahead of the check, and ahead of the small tournament."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from tournaments.api import actions
    from tournaments.management.commands import _seeds
    from tournaments.models import Bot, BotVersion, Match, bundle_code
    from tournaments.uploads import Bundle

    redis.Redis.from_url(BROKER).flushdb()
    seeds = _seeds.current_versions(GAME)
    flooder = User.objects.create(username=f"flood-{label}")
    small = User.objects.create(username=f"small-{label}")
    slots = {"TOURNAMENT_SLOTS": str(10**6 if label == "fifo" else 1), "CELERY_SKIP_CHECKS": "1"}
    with ExitStack() as workers:
        for name in ("one", "two"):
            workers.enter_context(worker(f"{label}-{name}", db, folder, slots))
        flood = start(flooder, "flood", seeds, FLOOD_ROUNDS)
        wait(lambda: started(flood) >= 3, "the flood to be under way")

        bot = Bot.objects.create(owner=small, game=GAME, name=f"newcomer-{label}")
        code, digest = bundle_code({"main.py": bytes(seeds[0].code) + f"# {label}\n".encode()})
        before, requested = started(flood), timezone.now()
        version, _ = actions.upload_version(bot, Bundle(files={}, code=code, content_hash=digest))
        mine = start(small, "small", seeds[:2], SMALL_ROUNDS)
        wait(
            lambda: (
                BotVersion.objects.filter(pk=version.pk)
                .exclude(status=BotVersion.Status.PENDING)
                .exists()
            ),
            "the check to be claimed",
        )
        check_wait = started(flood) - before
        ours = Match.objects.filter(tournament_id=mine)
        wait(lambda: not ours.filter(started_at__isnull=True).exists(), "the small tournament")
        last = max(m.started_at for m in ours)
        small_wait = Match.objects.filter(
            tournament_id=flood, started_at__gt=requested, started_at__lt=last
        ).count()
        Match.objects.filter(tournament_id=flood, status="queued").update(status="cancelled")
    return check_wait, small_wait


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default="local")
    options = parser.parse_args()
    if options.sandbox == "docker":
        os.environ.setdefault("JUDGE_PIPE_ROOT", str(ROOT / "var" / "pipes"))
    os.environ["TOURNAMENT_SLOTS"] = "1"
    configure("bench_fairness", BROKER, options.sandbox)
    with tempfile.TemporaryDirectory(prefix="bench-fairness-") as tmp, scratch_database() as db:
        folder = Path(tmp)
        fifo(False)
        fair = phase("fair", db, folder)
        fifo(True)
        baseline = phase("fifo", db, folder)
        fifo(False)
    redis.Redis.from_url(BROKER).flushdb()
    total = 6 * FLOOD_ROUNDS
    print(
        f"{GAME}: one user floods with {total} matches, another checks a new version and runs "
        f"a {SMALL_ROUNDS}-match tournament; 2 workers, {options.sandbox} sandbox, "
        f"{os.cpu_count()} cores"
    )
    print("  the small user's wait, in the flood's matches started ahead of it:")
    for name, ours, theirs in (
        ("check", fair[0], baseline[0]),
        ("4-match tournament", fair[1], baseline[1]),
    ):
        ratio = f"{theirs / ours:.1f}x fewer" if ours else "no match ahead"
        print(f"  {name:20s} fair {ours:3d}   FIFO (baseline) {theirs:3d}   {ratio}")


if __name__ == "__main__":
    main()
