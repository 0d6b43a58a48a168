"""What playing a duplicate match's rotations on different hosts costs: matches per minute
and the database's extra work per match.

Two real Celery workers (one process each, prefetch 1) announce two hosts (WORKER_HOST);
a round robin of house bots in duplicate Oceans 11 (2 seats: 2 rotations) is played with
SPLIT_ROTATIONS_ACROSS_HOSTS=auto (each match in two parts, one per host: a part stored,
then the next sent to the other host's queue) and, as the baseline in the same run, with
"off" (each match whole on either worker), the two alternating ``--rounds`` times. The
database's work is read from PostgreSQL's own counters for the scratch database
(pg_stat_database: transactions committed, rows inserted, updated and deleted), and the
bytes the parts stored (MatchPart rows' JSON, the games a part carries to the next).

Run: ``python -m bench.service.split_rotations [--sandbox local|docker] [--bots N]
[--games G] [--rounds R]`` (about a minute with the local sandbox). It makes its own
PostgreSQL database (dropped at the end) and uses Redis db 13 (emptied).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import redis

from bench._service import configure, scratch_database, worker

BROKER = "redis://127.0.0.1:6379/13"
COUNTERS = ("xact_commit", "tup_inserted", "tup_updated", "tup_deleted")


@dataclass
class Phase:
    mode: str
    matches: int = 0
    wall: float = 0.0
    commits: int = 0
    rows_written: int = 0
    part_bytes: int = 0


def counters() -> dict[str, int]:
    """The scratch database's counters, once PostgreSQL has flushed them."""
    from django.db import connection

    time.sleep(1.5)  # backends report their counters at most once a second
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            f"SELECT {', '.join(COUNTERS)} FROM pg_stat_database WHERE datname = %s",
            [connection.settings_dict["NAME"]],
        )
        row = cursor.fetchone()
    return dict(zip(COUNTERS, row, strict=True))


def play_round(mode: str, bots: int, games: int, seed: int) -> Phase:
    from django.db import connection, transaction

    from tournaments.bots import bot_actions
    from tournaments.competitions import competition_actions
    from tournaments.models import Bot, BotVersion, Match, Tournament

    versions = []
    for i in range(bots):
        policy = ("random", "greedy")[i % 2]
        bot = Bot.objects.create(game="oceans11", name=f"{mode}-{seed}-{i}", house_policy=policy)
        versions.append(
            bot_actions.add_version(bot, b"", f"house:{policy}:{i}", BotVersion.Status.ACCEPTED)
        )
    tournament = competition_actions.create_tournament(
        None, f"bench {mode} {seed}", "oceans11", versions, table_size=2,
        games_per_pairing=games, duplicate=True, seed=seed,
    )  # fmt: skip
    before = counters()
    began = time.perf_counter()
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    total = Tournament.objects.get(pk=tournament.pk).matches_total
    while Tournament.objects.values_list("matches_done", flat=True).get(pk=tournament.pk) < total:
        time.sleep(0.5)
    wall = time.perf_counter() - began
    after = counters()
    matches = Match.objects.filter(tournament=tournament)
    if matches.exclude(status=Match.Status.DONE).exists():
        sys.exit(f"{mode}: some matches did not finish; see the worker logs")
    split = matches.filter(parts__gt=1).count()
    if (mode == "auto") != (split == total):
        sys.exit(f"{mode}: {split} of {total} matches were played in parts")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(pg_column_size(p.*)), 0) FROM tournaments_matchpart p "
            "JOIN tournaments_match m ON m.id = p.match_id WHERE m.tournament_id = %s",
            [tournament.pk],
        )
        (part_bytes,) = cursor.fetchone()
    written = sum(after[k] - before[k] for k in COUNTERS[1:])
    return Phase(
        mode, total, wall, after["xact_commit"] - before["xact_commit"], written, int(part_bytes)
    )


def report(phases: list[Phase]) -> None:
    def total(mode: str) -> Phase:
        mine = [p for p in phases if p.mode == mode]
        return Phase(
            mode,
            sum(p.matches for p in mine),
            sum(p.wall for p in mine),
            sum(p.commits for p in mine),
            sum(p.rows_written for p in mine),
            sum(p.part_bytes for p in mine),
        )

    whole, split = total("off"), total("auto")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    for phase in (whole, split):
        n = phase.matches
        print(
            f"  {phase.mode:>4} ({'whole' if phase.mode == 'off' else 'in parts'}): {n} matches"
            f", {60 * n / phase.wall:6.1f} matches/min, {phase.commits / n:6.1f} commits"
            f" and {phase.rows_written / n:6.1f} rows written a match"
            f" (parts' rows {phase.part_bytes / n / 1024:.1f} KiB a match)"
        )
    rate = (split.matches / split.wall) / (whole.matches / whole.wall)
    commits = (split.commits / split.matches) / (whole.commits / whole.matches)
    rows = (split.rows_written / split.matches) / (whole.rows_written / whole.matches)
    print(
        f"  in parts / whole: matches/min {rate:.2f}x, commits {commits:.2f}x (the bench's "
        f"polling included), rows written {rows:.2f}x"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default="local")
    parser.add_argument("--bots", type=int, default=4, help="house bots in each round robin")
    parser.add_argument("--games", type=int, default=2, help="deals per match (duplicated)")
    parser.add_argument("--rounds", type=int, default=1, help="times each mode is played")
    args = parser.parse_args(argv)
    configure("bench_split", BROKER, args.sandbox)
    client = redis.Redis.from_url(BROKER)
    client.flushdb()
    print(
        f"bench split rotations: 2 workers on 2 announced hosts, sandbox {args.sandbox}, "
        f"{args.bots} house bots, duplicate Oceans 11, {args.games} deal(s) a match; "
        f"load average at the start: {os.getloadavg()[0]:.1f}"
    )
    phases: list[Phase] = []
    with tempfile.TemporaryDirectory() as folder, scratch_database() as url:
        for round_ in range(args.rounds):
            for mode in ("off", "auto"):
                env = {
                    "CELERY_SKIP_CHECKS": "1",
                    "SPLIT_ROTATIONS_ACROSS_HOSTS": mode,
                    "WORKER_HEARTBEAT_SECONDS": "1",
                }
                with ExitStack() as stack:
                    for host in ("a", "b"):
                        name = f"{mode}{round_}{host}"
                        stack.enter_context(
                            worker(name, url, Path(folder), {**env, "WORKER_HOST": host})
                        )
                    wait_for_hosts(2)
                    phases.append(play_round(mode, args.bots, args.games, 7 + round_))
    report(phases)
    client.flushdb()
    return 0


def wait_for_hosts(count: int) -> None:
    from tournaments.play import dispatch

    deadline = time.monotonic() + 60
    while len(dispatch.live_hosts()) < count:
        if time.monotonic() > deadline:
            sys.exit(f"fewer than {count} hosts announced themselves")
        time.sleep(0.2)


if __name__ == "__main__":
    sys.exit(main())
