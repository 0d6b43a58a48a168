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

``--cpu N`` measures instead what issue 45 asks of a match of fast bots: the CPU of N
duplicate Big Two matches of four starter bots (``starters/python``: numpy, an instant
random choice), one deal each (four rotations), in interleaved rounds: the worker
process's CPU and the bots' (the pooled containers' cgroups, every process in them; a
local bot's own), against the engine alone playing as many random deals in-process
(the baseline, same run: ten times as many each round, averaged, for a steady figure).
Modes: local processes, the pool with each seating's bot forked from its container's
zygote, the pool with each exec'd. Goal: the pool with the zygote at most 20x the
engine alone.

The seats' FIFO folders go on a tmpfs (``/dev/shm``) where the host has one, as a
deployment's pipe root should be (docs/deploy.md); ``--pipes DIR`` puts them elsewhere
(``--pipes /tmp``: this host's disk, where a seating's folder costs 0.5-2.7 ms of CPU).

Run: ``python -m bench.sandbox.throughput [--rounds R] [--games G] [--bot-shares N]
[--load N] [--modes "docker pool,..."] [--cpu N] [--pipes DIR]`` (about 12 minutes for every mode at
the default 4 rounds on a busy machine; ``--modes "docker pool" --load 4`` about 6;
``--cpu 3`` about 2).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from judge.games.bigtwo import BigTwo
from sandbox.backend import Backend
from sandbox.docker_backend import DockerBackend
from sandbox.local import LocalBackend, NotASandboxWarning
from sandbox.pipes import fast_folder
from tournaments.play import runner

GAMES = (("oceans11", 2), ("bigtwo", 4), ("fifteen35", 6))
MODES = ("local", "docker fresh", "docker warm", "docker reuse", "docker pool")
#: A host process that spins until killed (``--load``).
SPIN = [sys.executable, "-c", "while True: pass"]
#: The instant Python bot of ``--cpu``: the starter every author begins from.
STARTER = Path(__file__).resolve().parents[2] / "starters" / "python" / "main.py"
#: ``--cpu``'s match: duplicate Big Two, 4 seats, one deal: 4 rotations, 16 seatings.
CPU_SEATS = 4
#: Each round the engine alone plays this many times a match's deals (its figure per match
#: is their mean): a match's 4 deals take it under 10 ms, which a busy host's noise moved
#: by a third from one run to the next.
ENGINE_REPEAT = 10
#: The seats' FIFOs on a tmpfs where the host has one, as a deployment's pipe root should
#: be (docs/deploy.md): on this host's ext4 a seating's folder cost 0.5-2.7 ms of CPU.
PIPES_AT = fast_folder()


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
        "--cpu",
        type=int,
        default=0,
        help="measure the CPU of N Big Two matches of starter bots against the engine instead",
    )
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        help="host processes spinning at nice 0 through the run (a loaded machine)",
    )
    parser.add_argument(
        "--pipes",
        default=PIPES_AT,
        help=f"where the seats' FIFO folders go (default: {PIPES_AT or 'the temporary folder'})",
    )
    args = parser.parse_args()
    modes = ["local", *[m for m in args.modes.split(",") if m in MODES and m != "local"]]
    spinners = [subprocess.Popen(SPIN) for _ in range(args.load)]
    try:
        if args.cpu:
            run_cpu(args.cpu, args.bot_shares, args.pipes)
        else:
            run(args, modes)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def run(args: argparse.Namespace, modes: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        local = LocalBackend()
    pipes_at = args.pipes
    with tempfile.TemporaryDirectory(prefix="bench-throughput-", dir=pipes_at) as folder:
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
        print(f"load average at start: {load()}; seat folders under {folder}")
        measure(args.rounds, args.games, backends)
        print(f"pool: {docker.pool.hits} containers taken from it, {docker.pool.misses} started")
        docker.pool.close()
        print(f"load average at end: {load()}")


def starter_plan(seed: int, instance: str) -> runner.MatchPlan:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", STARTER.read_text())
    code = buffer.getvalue()
    seats = [runner.SeatPlan(f"starter{i}", "starter", code=code) for i in range(CPU_SEATS)]
    return runner.MatchPlan(
        match_id=seed,
        game="bigtwo",
        variant="",
        options={},
        seed=seed,
        games=1,
        duplicate=True,
        time_control={"startup_s": 30.0, "move_s": 5.0, "bank_s": 30.0},
        limits={},
        seats=seats,
        instance=instance,
    )


def engine_cpu(deals: int, first: int = 0) -> float:
    """CPU seconds of the engine alone playing ``deals`` random 4-player deals (seeds
    from ``first``)."""
    rnd = random.Random(first)
    began = time.process_time()
    for seed in range(first, first + deals):
        game = BigTwo(seed=seed, players=CPU_SEATS)
        while not game.is_over():
            seat = game.to_act()[0]
            game.apply(seat, rnd.choice(game.legal_actions(seat)))
    return time.process_time() - began


def bots_cpu(backend: Backend) -> dict[int, float]:
    """The CPU seconds of each of the pool's idle containers, or of the local bots."""
    if isinstance(backend, DockerBackend):
        return {id(c): c.cpu_seconds() or 0.0 for c in backend.pool.containers()}
    return {
        0: resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
        + resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime
    }


def cpu_of_match(
    plan: runner.MatchPlan, backend: Backend, lifecycle: runner.Lifecycle
) -> tuple[float, float]:
    """The worker's and the bots' CPU seconds for one match (every container back in the
    pool at its end; one the match started counts whole)."""
    before, worker = bots_cpu(backend), time.process_time()
    play_one(plan, backend, lifecycle)
    worker = time.process_time() - worker
    after = bots_cpu(backend)
    return worker, sum(value - before.get(key, 0.0) for key, value in after.items())


def run_cpu(matches: int, bot_shares: int | None, pipes_at: Path | str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        local = LocalBackend()
    with tempfile.TemporaryDirectory(prefix="bench-throughput-", dir=pipes_at) as folder:
        Path(folder).chmod(0o711)  # reachable by a remapping engine (docs/deploy.md)
        pipes = Path(folder) / "pipes"
        modes: dict[str, tuple[Backend, runner.Lifecycle]] = {
            "local": (local, "fresh"),
            "pool, zygote": (
                DockerBackend(pipe_root=pipes, bot_shares=bot_shares, zygote=True),
                "pool",
            ),
            "pool, exec": (
                DockerBackend(pipe_root=pipes, bot_shares=bot_shares, zygote=False, clean=False),
                "pool",
            ),
        }
        print(f"load average at start: {load()}; seat folders under {folder}")
        instance = f"bench-cpu-{os.getpid()}"
        for backend, lifecycle in modes.values():  # warm-up: fills the pool
            play_one(starter_plan(1, instance), backend, lifecycle)
        spent = {mode: [0.0, 0.0] for mode in modes}
        engine = 0.0
        for round_ in range(matches):
            for mode, (backend, lifecycle) in modes.items():
                worker, bots = cpu_of_match(
                    starter_plan(100 + round_, instance), backend, lifecycle
                )
                spent[mode][0] += worker
                spent[mode][1] += bots
            deals = CPU_SEATS * ENGINE_REPEAT
            engine += engine_cpu(deals, round_ * deals) / ENGINE_REPEAT / matches
        print(
            f"CPU per duplicate Big Two match of {CPU_SEATS} starter bots ({CPU_SEATS} deals), "
            f"{matches} matches per mode:"
        )
        print(f"  {'engine alone':<14} {1000 * engine:8.1f} ms")
        for mode, (worker, bots) in spent.items():
            total = (worker + bots) / matches
            print(
                f"  {mode:<14} {1000 * total:8.1f} ms (worker {1000 * worker / matches:.0f}, "
                f"bots {1000 * bots / matches:.0f})  ratio to the engine {total / engine:6.1f}x"
            )
        ratio = sum(spent["pool, zygote"]) / matches / engine
        verdict = "met" if ratio <= 20 else "MISSED"
        print(f"  goal pool with the zygote <= 20x the engine alone: {verdict} ({ratio:.1f}x)")
        for backend, _ in modes.values():
            if isinstance(backend, DockerBackend):
                backend.pool.close()
        print(f"load average at end: {load()}")


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
