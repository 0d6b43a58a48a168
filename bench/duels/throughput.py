"""A duel's games per minute on the main job's path, today's code against the issue's.

A house duel of two instant house bots (two versions of Oceans 11's random bot by default:
equal, so the test runs to its game cap and the figure is the steady pace, not how soon a
lucky test stops) is played by a real Celery worker as ``scripts/run`` starts it (one
process per core plus one, prefetch 1, ``-O fair``, INTERACTIVE_RESERVE at its default of
1), through Redis and PostgreSQL, every bot in Docker with the pool lifecycle and named
pipes. The figure is the games the test counted per minute of wall time, from the duel's
creation to its end.

Baseline, measured in the same run on the same machine: the code when issue 45 was filed
(commit 51731ec, "220 games in 264 s"), checked out by the bench into a temporary git
worktree (``--baseline-tree`` names one already made), with a database, a Redis db and a
worker of its own, run by the same interpreter and packages. Each duel is created and
awaited by ``_side.py`` run from its own checkout, so each side plays entirely by its own
code. With ``--settings-baseline`` a third side plays today's code with the issue's
dispatch settings (rounds of 10 pairs, one in flight, each bot exec'd): what the settings
alone are worth. The sides alternate (``--repeat`` times each, the order turned every
time, so a load that rises or falls through the run weighs on all alike); each ratio is
today's games per minute over that side's, summed over the repetitions.

Per side it also says where the time went: each match's wall time as the worker timed it
(starting bots, the referee, the database), the CPU seconds per game of the worker's
processes and of the bots' containers (their cgroups: per worker process today, one
host-wide group in the issue's code), and how busy the whole machine was (the other
sessions' load included).

Run: ``python -m bench.duels.throughput [--game G] [--policy P] [--games N]
[--baseline-games N] [--repeat R] [--baseline-commit C | --baseline-tree DIR]
[--settings-baseline]`` (about 6 minutes). It makes its own PostgreSQL databases (dropped
at the end) and empties Redis dbs 11 and 12 (BENCH_DUEL_BROKER_URL,
BENCH_DUEL_BASELINE_BROKER_URL for others).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from statistics import median
from typing import Any

import psycopg
import redis

from bench._service import DATABASE, ROOT, worker

BROKER = os.environ.get("BENCH_DUEL_BROKER_URL", "redis://127.0.0.1:6379/11")
BASELINE_BROKER = os.environ.get("BENCH_DUEL_BASELINE_BROKER_URL", "redis://127.0.0.1:6379/12")
#: The code when issue 45 was filed: the parent of its first commit.
ISSUE_COMMIT = "51731ec"
#: The longest one duel may take, with its start (seconds).
TIMEOUT_S = 1900.0
CGROUPS = Path("/sys/fs/cgroup")
SIDE = Path(__file__).resolve().parent / "_side.py"


@dataclass(frozen=True)
class Config:
    """One way of playing the duel: a checkout of the code, its broker, and settings for
    its worker (and for the duel's creation, which queues its first rounds)."""

    name: str
    root: Path
    broker: str
    env: dict[str, str] = field(default_factory=dict)


#: The issue's dispatch reproduced on today's code by settings: rounds of 10 pairs, one in
#: flight, each bot exec'd.
ISSUE_SETTINGS = {
    "DUEL_PAIRS_PER_ROUND": "10", "DUEL_ROUNDS_IN_FLIGHT": "1", "JUDGE_SANDBOX_ZYGOTE": "0",
}  # fmt: skip


@dataclass
class Run:
    """What one side's duels did, summed over its repetitions."""

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


def measure(args: argparse.Namespace, config: Config, games: int, run: Run, tag: str) -> None:
    """Play one duel under ``config`` with a worker of its own; add its figures to ``run``."""
    env = {
        **config.env, "PYTHONPATH": str(config.root), "CELERY_BROKER_URL": config.broker,
        "DATABASE_URL": args.databases[config.root], "JUDGE_PIPE_ROOT": str(args.pipes),
    }  # fmt: skip
    processes = (os.cpu_count() or 1) + 1
    with worker(
        tag, env["DATABASE_URL"], args.folder, env, processes, extra=("-O", "fair"),
        root=config.root,
    ) as main:  # fmt: skip
        workers_before, shared_before = _tree_cpu(main.pid), _shared_bots_cpu()
        ticks = _cpu_ticks()
        settings = {k: int(v) for k, v in config.env.items() if k.startswith("DUEL_")}
        command = [
            sys.executable, str(SIDE), "--game", args.game, "--policy", args.policy,
            "--games", str(games), "--tag", tag, "--settings", json.dumps(settings),
        ]  # fmt: skip
        side = subprocess.run(
            command, cwd=config.root, env={**os.environ, **env}, capture_output=True,
            text=True, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
        run.busy.append(_busy_share(ticks, _cpu_ticks()))
        run.loads.append(os.getloadavg()[0])
        run.add("worker", _tree_cpu(main.pid) - workers_before, "cpu")
        bots = _bots_cpu(_children(main.pid)) + _shared_bots_cpu() - shared_before
        run.add("bots", bots, "cpu")
    if side.returncode:
        sys.exit(f"{config.name}: the duel's side failed:\n{side.stderr[-3000:]}")
    duel = json.loads(side.stdout.strip().splitlines()[-1])
    if duel["status"] != "capped":
        sys.exit(f"{config.name}: the duel ended {duel['status']} ({duel['failure']}); see "
                 f"{args.folder / (tag + '.log')}")  # fmt: skip
    run.wall += duel["wall"]
    run.games += duel["games"]
    run.matches += len(duel["matches"])
    run.pairs_per_round = duel["pairs_per_round"]
    for match in duel["matches"]:
        for key in ("sandbox_start", "referee", "database"):
            run.add(key, match["timings"].get(key, 0.0))
    run.gaps += _gaps(duel["matches"])


def _gaps(matches: list[dict[str, Any]]) -> list[float]:
    """Per match, the time from the end of the match before it on the duel (whichever
    process played that) to its own start: what dispatch, the broker and the claim cost
    while a process waits for it (0 when it was already playing)."""
    ends = sorted(m["finished"] for m in matches)
    gaps = []
    for match in matches:
        before = [end for end in ends if end <= match["started"]]
        if before:
            gaps.append(match["started"] - before[-1])
    return gaps


@contextmanager
def database(root: Path, name: str) -> Iterator[str]:
    """A fresh database migrated by the checkout at ``root`` (dropped at the end); its URL."""
    server = os.environ.get("DATABASE_URL", DATABASE)
    if not server.startswith(("postgres://", "postgresql://")):
        sys.exit("bench duels.throughput needs PostgreSQL (DATABASE_URL=postgres://...)")
    base = server.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    url = f"{base}/{name}"
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=root,
            env={**os.environ, "PYTHONPATH": str(root), "DATABASE_URL": url}, check=True,
        )  # fmt: skip
        yield url
    finally:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """A detached git worktree of ``commit`` in a temporary folder, removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="bench-duel-baseline-"))
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(folder), commit],
        check=True,
    )  # fmt: skip
    try:
        yield folder
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)], check=False
        )  # fmt: skip


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


def _shared_bots_cpu() -> float:
    """CPU seconds so far of the one host-wide bots' cgroup (cardjudge-bots) the issue's
    code put every container in; read before and after a duel (nothing else on this
    machine runs that code's bots)."""
    usage = CGROUPS / "cpuacct" / "cardjudge-bots" / "cpuacct.usage"
    if usage.exists():
        return int(usage.read_text()) / 1e9
    stat = CGROUPS / "cardjudge-bots" / "cpu.stat"  # cgroup v2
    if stat.exists():
        found = dict(line.split() for line in stat.read_text().splitlines())
        return int(found.get("usage_usec", 0)) / 1e6
    return 0.0


def _cpu_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of every CPU since boot (/proc/stat's first line)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def _busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    return (after[0] - before[0]) / max(1, after[1] - before[1])


def report(run: Run, today: Run | None) -> None:
    """One side's figures; with ``today``, today's ratio to it."""
    config = run.config
    settings = ", ".join(f"{k}={v}" for k, v in config.env.items()) or "defaults"
    ratio = f"   today / this {today.rate / run.rate:.2f}" if today is not None else ""
    print(f"  {config.name:>24}: {run.games:5d} games in {run.wall:6.1f} s = "
          f"{run.rate:6.1f} games/min{ratio}")  # fmt: skip
    per = {key: value / max(1, run.matches) for key, value in run.timings.items()}
    cpu = {key: 1000 * value / max(1, run.games) for key, value in run.cpu.items()}
    loads = f"{min(run.loads):.1f}-{max(run.loads):.1f}"
    busy = f"{min(run.busy):.0%}-{max(run.busy):.0%}"
    print(f"  {'':>24}  {config.root.name}, {settings}: rounds of {run.pairs_per_round} pairs, "
          f"{run.matches} matches; a match's wall: starting bots {per['sandbox_start']:.3f} s, "
          f"referee {per['referee']:.3f} s, database {per['database']:.3f} s; from the duel's "
          f"previous match end to its start (median) {median(run.gaps or [0]):.3f} s")  # fmt: skip
    print(f"  {'':>24}  CPU per game: worker {cpu['worker']:.1f} ms, bots' containers "
          f"{cpu['bots']:.1f} ms; load {loads}, the machine's CPU {busy} busy")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="oceans11")
    parser.add_argument("--policy", default="random", help="the house bot on both sides")
    parser.add_argument("--games", type=int, default=600, help="today's duel's game cap")
    parser.add_argument(
        "--baseline-games", type=int, default=200, help="the baselines' duels' game cap"
    )
    parser.add_argument("--repeat", type=int, default=2, help="duels of each side")
    parser.add_argument("--baseline-commit", default=ISSUE_COMMIT, help="the issue's code")
    parser.add_argument(
        "--baseline-tree", type=Path, help="a checkout of the issue's code already made"
    )
    parser.add_argument(
        "--settings-baseline", action="store_true",
        help="also today's code with the issue's dispatch settings",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if subprocess.run(["docker", "info"], capture_output=True, check=False).returncode:
        sys.exit("bench duels.throughput plays the main job's path: it needs Docker")
    os.environ.update({
        "JUDGE_SANDBOX": "docker", "JUDGE_HOUSE_BOTS": "sandbox", "CELERY_SKIP_CHECKS": "1",
        "DJANGO_SETTINGS_MODULE": "tournaments.config.settings",
    })  # fmt: skip
    os.environ.setdefault("INTERACTIVE_RESERVE", "1")  # the main job's default, not 0
    args.pipes = Path(os.environ.get("JUDGE_PIPE_ROOT") or ROOT / "var" / "pipes")
    brokers = [redis.Redis.from_url(url) for url in (BROKER, BASELINE_BROKER)]
    for client in brokers:
        client.flushdb()
    cores = os.cpu_count() or 1
    print(f"bench duels.throughput: a house duel of {args.game} {args.policy} against itself, "
          f"one worker of {cores + 1} processes, Docker pool, PostgreSQL, Redis; {cores} "
          f"cores; {args.repeat} duel(s) of each side, alternating; "
          f"{datetime.now().astimezone():%Y-%m-%d %H:%M %Z}")  # fmt: skip
    with ExitStack() as stack:
        args.folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-duel-")))
        old = args.baseline_tree or stack.enter_context(checkout(args.baseline_commit))
        issue = Config(f"issue 45's code ({args.baseline_commit})", old, BASELINE_BROKER)
        today = Config("today", ROOT, BROKER)
        steps = [(issue, args.baseline_games), (today, args.games)]
        if args.settings_baseline:
            reproduced = Config("today, issue's settings", ROOT, BROKER, ISSUE_SETTINGS)
            steps.insert(1, (reproduced, args.baseline_games))
        args.databases = {}
        for number, root in enumerate(dict.fromkeys(config.root for config, _ in steps)):
            name = f"bench_duel_throughput_{os.getpid()}_{number}"
            args.databases[root] = stack.enter_context(database(root, name))
        runs = {config.name: Run(config) for config, _ in steps}
        for repeat in range(args.repeat):
            for number, (config, games) in enumerate(steps[:: 1 if repeat % 2 == 0 else -1]):
                words = "".join(c if c.isalnum() else " " for c in config.name.split(" (")[0])
                tag = f"{'-'.join(words.split())}-{repeat}-{number}"
                measure(args, config, games, runs[config.name], tag)
    for config, _ in steps:
        if config is not today:
            report(runs[config.name], runs[today.name])
    report(runs[today.name], None)
    for client in brokers:
        client.flushdb()
    return 0


if __name__ == "__main__":
    sys.exit(main())
