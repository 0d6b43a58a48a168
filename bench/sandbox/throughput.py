"""Matches per minute on one worker: Docker against local processes, old and new lifecycle.

Per game (Oceans 11 at 2 players, Big Two at 4, Fifteen Thirty-Five at 6, every match
duplicate: each deal played once per seating, each seating by fresh bot processes) the
worker's own code path (``tournaments.play.runner.play``: no broker, no database, which cost
about 5% of a match) plays house bots, in interleaved rounds, with:

- ``local``: the local-process sandbox (the baseline, measured in the same run);
- ``docker fresh``: the old lifecycle (``play(lifecycle="fresh")``): each block starts
  its containers when it begins and removes them when it ends;
- ``docker warm``: ``sandbox.lifecycle.WarmTable``: the next block's
  containers are started (gated) while a block plays, removals happen in the background;
- ``docker reuse``: one container per bot per match, a fresh process per seating
  (``sandbox.reuse``, off by default: see docs/sandbox.md for what it leaks);
- ``docker pool``: the default (``sandbox.pool``): reused containers kept across
  matches, none serving two seatings of one match; the pool's hits and misses are
  printed (the warm-up match fills it, as a worker's first matches do).

On cgroup v1 the engine puts every container under /docker, which weighs as much as one
host process: on a busy host the bots together got one process's share of the CPU while
local bots get one each. The backend now puts them in a cgroup of their worker's
(``cardjudge-bots-<host>-<pid>-<start>``, weight ``JUDGE_BOT_CPU_SHARES``, default 4096;
``python -m bench.sandbox.shares`` compares two workers); ``--bot-shares N``
sets that weight, 0 leaves them under /docker (docs/sandbox.md, "CPU under load").
``--load N`` keeps N host processes spinning through the run (a loaded machine, made
the same way every time); ``--modes`` picks the Docker lifecycles measured beside local.

Printed per game and mode: matches per minute, the ratio to local, and the share of the
worker's wall time spent blocked starting bots and closing them (the final wait until a
match's containers are gone included). Goals: warm and reuse >= 0.7x local with
start/stop <= 25%; pool >= 0.9x local. The machine's load average is printed too (the
figures move with it).

Run: ``python -m bench.sandbox.throughput [--rounds R] [--games G] [--bot-shares N]
[--load N] [--modes "docker pool,..."]`` (about 12 minutes for every mode at the default 4
rounds on a busy machine; ``--modes "docker pool" --load 4`` about 6).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.backend import Backend
from sandbox.docker_backend import DockerBackend
from sandbox.local import LocalBackend, NotASandboxWarning
from tournaments.play import runner

GAMES = (("oceans11", 2), ("bigtwo", 4), ("fifteen35", 6))
MODES = ("local", "docker fresh", "docker warm", "docker reuse", "docker pool")
#: A host process that spins until killed (``--load``).
SPIN = [sys.executable, "-c", "while True: pass"]


@dataclass
class Tally:
    matches: int = 0
    wall: float = 0.0
    start: float = 0.0
    stop: float = 0.0
    walls: list[float] = field(default_factory=list)

    def add(self, wall: float, timings: runner.Timings) -> None:
        self.matches += 1
        self.wall += wall
        self.walls.append(wall)
        self.start += timings.sandbox_start
        self.stop += timings.sandbox_stop

    @property
    def per_minute(self) -> float:
        return 60 * self.matches / self.wall


def plan(game: str, players: int, seed: int, games: int) -> runner.MatchPlan:
    policies = ["random", "greedy"]
    seats = [
        runner.SeatPlan(
            name=f"house:{policies[i % 2]}", content_hash="", house_policy=policies[i % 2]
        )
        for i in range(players)
    ]
    return runner.MatchPlan(
        match_id=seed,
        game=game,
        variant="",
        options={},
        seed=seed,
        games=games,
        duplicate=True,
        time_control={"startup_s": 30.0, "move_s": 5.0, "bank_s": 30.0},
        limits={},
        seats=seats,
        instance=f"bench-throughput-{os.getpid()}",
    )


def play_one(
    match: runner.MatchPlan, backend: Backend, lifecycle: runner.Lifecycle
) -> tuple[float, runner.Timings]:
    began = time.perf_counter()
    outcome, timings = runner.play(match, lambda: backend, lifecycle=lifecycle)
    wall = time.perf_counter() - began
    assert not outcome["faults"], outcome["faults"]
    return wall, timings


def measure(rounds: int, games: int, backends: dict[str, tuple[Backend, runner.Lifecycle]]) -> None:
    for game, players in GAMES:
        tallies = {mode: Tally() for mode in backends}
        for backend, lifecycle in backends.values():  # warm-up: images, caches, imports
            play_one(plan(game, players, 1, games), backend, lifecycle)
        for round_ in range(rounds):
            for mode in backends:
                backend, lifecycle = backends[mode]
                tallies[mode].add(
                    *play_one(plan(game, players, 100 + round_, games), backend, lifecycle)
                )
        report(game, players, tallies)


def report(game: str, players: int, tallies: dict[str, Tally]) -> None:
    local = tallies["local"].per_minute
    print(f"{game}, {players} players, duplicate ({tallies['local'].matches} matches per mode):")
    for mode, tally in tallies.items():
        share = (tally.start + tally.stop) / tally.wall
        rate = tally.per_minute
        print(
            f"  {mode:<13} {rate:7.1f} matches/min  ratio {rate / local:5.2f}x"
            f"  start {tally.start / tally.wall:6.1%}  stop {tally.stop / tally.wall:6.1%}"
            f"  start+stop {share:6.1%}  per match {1000 * tally.wall / tally.matches:7.0f} ms"
        )
    for mode in [m for m in ("docker warm", "docker reuse") if m in tallies]:
        tally = tallies[mode]
        ratio = tally.per_minute / local
        share = (tally.start + tally.stop) / tally.wall
        verdict = "met" if ratio >= 0.7 and share <= 0.25 else "MISSED"
        print(f"  goal {mode} >= 0.7x local, start+stop <= 25%: {verdict}")
    if "docker pool" in tallies:
        ratio = tallies["docker pool"].per_minute / local
        verdict = "met" if ratio >= 0.9 else "MISSED"
        print(f"  goal docker pool >= 0.9x local: {verdict} ({ratio:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--games", type=int, default=1, help="deals per match")
    parser.add_argument(
        "--bot-shares",
        type=int,
        default=None,
        help="the bots' cgroup's CPU weight (default: the backend's; 0: the engine's /docker)",
    )
    parser.add_argument(
        "--modes",
        default=",".join(MODES),
        help=f"comma-separated, local always included (default: {','.join(MODES)})",
    )
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        help="host processes spinning at nice 0 through the run (a loaded machine)",
    )
    args = parser.parse_args()
    modes = ["local", *[m for m in args.modes.split(",") if m in MODES and m != "local"]]
    spinners = [subprocess.Popen(SPIN) for _ in range(args.load)]
    try:
        run(args, modes)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def run(args: argparse.Namespace, modes: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        local = LocalBackend()
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as folder:
        Path(folder).chmod(0o711)  # reachable by a remapping engine (docs/deploy.md)
        docker = DockerBackend(pipe_root=Path(folder) / "pipes", bot_shares=args.bot_shares)
        every: dict[str, tuple[Backend, runner.Lifecycle]] = {
            "local": (local, "fresh"),
            "docker fresh": (docker, "fresh"),
            "docker warm": (docker, "warm"),
            "docker reuse": (docker, "reuse"),
            "docker pool": (docker, "pool"),
        }
        backends = {mode: every[mode] for mode in modes}
        print(f"host processes spinning: {args.load}")
        print(f"containers' cgroup parent: {docker.cgroup_parent or 'the engine default'}")
        print(f"load average at start: {load()}")
        measure(args.rounds, args.games, backends)
        print(f"pool: {docker.pool.hits} containers taken from it, {docker.pool.misses} started")
        docker.pool.close()
        print(f"load average at end: {load()}")


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
