"""A duel's games per minute on the main job's path, today's dispatch against the issue's.

A house duel of two instant house bots (two versions of Oceans 11's random bot by default:
equal, so the test runs to its game cap and the figure is the steady pace, not how soon a
lucky test stops) is played by a real Celery worker as ``scripts/run`` starts it (one
process per core plus one, prefetch 1, ``-O fair``, INTERACTIVE_RESERVE at its default of
1), through Redis and PostgreSQL, every bot in Docker with the pool lifecycle and named
pipes. The figure is the games the test counted per minute of wall time, from the duel's
creation to its end.

Baseline, measured in the same run with a worker of its own: the duel's dispatch when
issue 45 was filed (220 games in 264 s, 50 games a minute), reproduced by settings:
rounds of 10 pairs (DUEL_PAIRS_PER_ROUND=10), one round in flight
(DUEL_ROUNDS_IN_FLIGHT=1), bots exec'd in their pooled containers
(JUDGE_SANDBOX_ZYGOTE=0). The two alternate (``--repeat`` times each, the order swapped
every time, so a load that rises or falls through the run weighs on both alike); the
ratio is today's games per minute over the baseline's, summed over the repetitions.

Per configuration it also says where the time went: each match's wall time as the worker
timed it (starting bots, the referee, the database), the CPU seconds per game of the
worker's processes and of the bots' containers (their cgroups), and how busy the whole
machine was (the other sessions' load included).

Run: ``python -m bench.duels.throughput [--game G] [--policy P] [--games N]
[--baseline-games N] [--repeat R]`` (about 5 minutes). It makes its own PostgreSQL
database (dropped at the end) and empties Redis db 11 (BENCH_DUEL_BROKER_URL for another).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import TYPE_CHECKING, Any

import redis

from bench._service import ROOT, configure, scratch_database, worker

if TYPE_CHECKING:
    from tournaments.models import BotVersion, Duel

BROKER = os.environ.get("BENCH_DUEL_BROKER_URL", "redis://127.0.0.1:6379/11")
#: The longest one duel may take before the bench gives up (seconds).
TIMEOUT_S = 1800.0
CGROUPS = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Config:
    """One way of playing the duel: settings for the worker (and this process, which
    makes the duel and queues its first rounds)."""

    name: str
    env: dict[str, str] = field(default_factory=dict)


#: The issue's dispatch: rounds of 10 pairs, one in flight, each bot exec'd.
BASELINE = Config(
    "issue 45 filed",
    {"DUEL_PAIRS_PER_ROUND": "10", "DUEL_ROUNDS_IN_FLIGHT": "1", "JUDGE_SANDBOX_ZYGOTE": "0"},
)
#: Today's defaults.
TODAY = Config("today")


@dataclass
class Run:
    """What one configuration's duels did, summed over its repetitions."""

    config: Config
    games: int = 0
    wall: float = 0.0
    matches: int = 0
    pairs_per_round: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    gaps: list[float] = field(default_factory=list)
    busy: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return 60 * self.games / self.wall if self.wall else 0.0

    def add(self, key: str, value: float, into: str = "timings") -> None:
        found = getattr(self, into)
        found[key] = found.get(key, 0.0) + value


def house_versions(game: str, policy: str, tag: str) -> tuple[BotVersion, BotVersion]:
    """Two distinct versions (B, A) of the house bot ``policy``: equal bots."""
    from tournaments.bots import bot_actions
    from tournaments.models import Bot, BotVersion

    versions = []
    for side in ("b", "a"):
        bot = Bot.objects.create(game=game, name=f"{policy}-{side}-{tag}", house_policy=policy)
        label = f"house:{policy}:{side}:{tag}"
        versions.append(bot_actions.add_version(bot, b"", label, BotVersion.Status.ACCEPTED))
    return versions[0], versions[1]


def play_duel(game: str, policy: str, config: Config, games: int, tag: str) -> Duel:
    """A house duel of equal bots, capped at ``games``, played to its end by the workers,
    with ``config``'s Django settings in this process too (it queues the first rounds)."""
    from django.conf import settings
    from django.test.utils import override_settings

    from tournaments.competitions import duels
    from tournaments.models import Duel

    b, a = house_versions(game, policy, tag)
    ours = {k: int(v) for k, v in config.env.items() if hasattr(settings, k)}
    # Bounds far narrower than two equal bots can be told apart by in ``games``: the cap ends it.
    request = duels.DuelRequest(
        b=b, a=a, elo0=-1.0, elo1=1.0, alpha=0.001, beta=0.001, max_games=games, seed=45
    )
    with override_settings(**ours):
        duel = duels.create_duel(None, request)
    deadline = time.monotonic() + TIMEOUT_S
    while duel.status == Duel.Status.RUNNING:
        if time.monotonic() > deadline:
            sys.exit(f"{config.name}: the duel did not end in {TIMEOUT_S:.0f} s; see the log")
        time.sleep(0.05)
        duel.refresh_from_db()
    return duel


def measure(args: argparse.Namespace, config: Config, games: int, run: Run, tag: str) -> None:
    """Play one duel under ``config`` with a worker of its own; add its figures to ``run``."""
    from tournaments.models import Duel, Match

    env = {"CELERY_SKIP_CHECKS": "1", **config.env}
    processes = (os.cpu_count() or 1) + 1
    with worker(tag, args.db, args.folder, env, processes, extra=("-O", "fair")) as main:
        workers_before = _tree_cpu(main.pid)
        began, ticks = time.perf_counter(), _cpu_ticks()
        duel = play_duel(args.game, args.policy, config, games, tag)
        run.wall += time.perf_counter() - began
        run.busy.append(_busy_share(ticks, _cpu_ticks()))
        run.loads.append(os.getloadavg()[0])
        run.add("worker", _tree_cpu(main.pid) - workers_before, "cpu")
        run.add("bots", _bots_cpu(_children(main.pid)), "cpu")
    if duel.status != Duel.Status.CAPPED:
        sys.exit(f"{config.name}: the duel ended {duel.status} ({duel.failure}); see the log")
    done = list(Match.objects.filter(duel=duel, status=Match.Status.DONE))
    run.games += duel.state["games"]
    run.matches += len(done)
    run.pairs_per_round = duel.pairs_per_round
    for match in done:
        for key in ("sandbox_start", "referee", "database"):
            run.add(key, (match.timings or {}).get(key, 0.0))
    run.gaps += _gaps(done)


def _gaps(matches: list[Any]) -> list[float]:
    """Per match, the time from the end of the match before it on the duel (whichever
    process played that) to its own start: what dispatch, the broker and the claim cost
    while a process waits for it (0 when it was already playing)."""
    ends = sorted(m.finished_at for m in matches)
    gaps = []
    for match in matches:
        before = [end for end in ends if end <= match.started_at]
        if before:
            gaps.append((match.started_at - before[-1]).total_seconds())
    return gaps


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a prefork worker's pool)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its children so far (user and system)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for one in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _bots_cpu(pids: list[int]) -> float:
    """CPU seconds of the bots' containers of these worker processes: each process's
    containers live under a cgroup of its own (cardjudge-bots-<host>-<pid>-<start>)."""
    total = 0.0
    for pid in pids:
        for usage in CGROUPS.glob(f"cpuacct/cardjudge-bots-*-{pid}-*/cpuacct.usage"):
            total += int(usage.read_text()) / 1e9
        for stat in CGROUPS.glob(f"cardjudge-bots-*-{pid}-*/cpu.stat"):  # cgroup v2
            usage = dict(line.split() for line in stat.read_text().splitlines())
            total += int(usage.get("usage_usec", 0)) / 1e6
    return total


def _cpu_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of every CPU since boot (/proc/stat's first line)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def _busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    return (after[0] - before[0]) / max(1, after[1] - before[1])


def report(run: Run, baseline: Run | None) -> None:
    config = run.config
    settings = ", ".join(f"{k}={v}" for k, v in config.env.items()) or "defaults"
    ratio = f"   ratio {run.rate / baseline.rate:.2f}" if baseline is not None else "   (baseline)"
    print(f"  {config.name:>15}: {run.games:5d} games in {run.wall:6.1f} s = "
          f"{run.rate:6.1f} games/min{ratio}")  # fmt: skip
    per = {key: value / max(1, run.matches) for key, value in run.timings.items()}
    cpu = {key: 1000 * value / max(1, run.games) for key, value in run.cpu.items()}
    loads = f"{min(run.loads):.1f}-{max(run.loads):.1f}"
    busy = f"{min(run.busy):.0%}-{max(run.busy):.0%}"
    print(f"  {'':>15}  {settings}: rounds of {run.pairs_per_round} pairs, {run.matches} "
          f"matches; a match's wall: starting bots {per['sandbox_start']:.3f} s, referee "
          f"{per['referee']:.3f} s, database {per['database']:.3f} s; from the duel's "
          f"previous match end to its start (median) {median(run.gaps or [0]):.3f} s")  # fmt: skip
    print(f"  {'':>15}  CPU per game: worker {cpu['worker']:.1f} ms, bots' containers "
          f"{cpu['bots']:.1f} ms; load {loads}, the machine's CPU {busy} busy")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="oceans11")
    parser.add_argument("--policy", default="random", help="the house bot on both sides")
    parser.add_argument("--games", type=int, default=600, help="today's duel's game cap")
    parser.add_argument(
        "--baseline-games", type=int, default=200, help="the baseline duel's game cap"
    )
    parser.add_argument("--repeat", type=int, default=2, help="duels of each configuration")
    args = parser.parse_args(argv)
    os.environ.setdefault("INTERACTIVE_RESERVE", "1")  # the main job's default, not 0
    os.environ.setdefault("JUDGE_PIPE_ROOT", str(ROOT / "var" / "pipes"))
    if subprocess.run(["docker", "info"], capture_output=True, check=False).returncode:
        sys.exit("bench duels.throughput plays the main job's path: it needs Docker")
    configure("bench_duel_throughput", BROKER, "docker")
    client = redis.Redis.from_url(BROKER)
    client.flushdb()
    cores = os.cpu_count() or 1
    print(f"bench duels.throughput: a house duel of {args.game} {args.policy} against itself, "
          f"one worker of {cores + 1} processes, Docker pool, PostgreSQL, Redis; {cores} "
          f"cores; {args.repeat} duel(s) of each, alternating")  # fmt: skip
    runs = {BASELINE.name: Run(BASELINE), TODAY.name: Run(TODAY)}
    steps = [(BASELINE, args.baseline_games), (TODAY, args.games)]
    with ExitStack() as stack:
        args.folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-duel-")))
        args.db = stack.enter_context(scratch_database())
        for repeat in range(args.repeat):
            for number, (config, games) in enumerate(steps[:: 1 if repeat % 2 == 0 else -1]):
                tag = f"{config.name.replace(' ', '-')}-{repeat}-{number}"
                measure(args, config, games, runs[config.name], tag)
    baseline = runs[BASELINE.name]
    report(baseline, None)
    report(runs[TODAY.name], baseline)
    client.flushdb()
    return 0


if __name__ == "__main__":
    sys.exit(main())
