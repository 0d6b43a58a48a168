"""A kernel per sandbox (gVisor's ``runsc``) against the engine's default (``runc``): what
it costs in throughput and what it does to the covert channels (issue 43).

In interleaved rounds on one engine with both runtimes registered (docs/sandbox.md, "A
kernel per sandbox"): runc in the default lifecycle (``pool``, FIFOs) and in ``fresh``
over the attach stream, and runsc in ``fresh`` over the attach stream (the only way its
bots run here: ``DockerBackend(runtime="runsc")`` has no pipe root):

- start-to-ready: one Python bot container started until its first line (fresh);
- a duplicate Oceans 11 match of two house bots (``--games`` deals), on the worker's
  path (``tournaments.play.runner.play``);
- the covert channels across containers (``sandbox.channels``, ``--handovers`` each):
  the dentry cache and the page cache, bits per hand-over.

Printed: medians per mode, runsc's ratio to runc (fresh), the load average.

Run: ``python -m bench.sandbox.isolation [--rounds R] [--games G] [--handovers H]`` on an
engine with ``runsc`` registered (``DOCKER_HOST`` names it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from sandbox import channels
from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from tournaments.play import runner

READY = "import sys\nprint('ready', flush=True)\nsys.stdin.readline()\n"


def plan(seed: int, games: int) -> runner.MatchPlan:
    seats = [
        runner.SeatPlan(name=f"house:{p}", content_hash="", house_policy=p)
        for p in ("random", "greedy")
    ]
    return runner.MatchPlan(
        match_id=seed,
        game="oceans11",
        variant="",
        options={},
        seed=seed,
        games=games,
        duplicate=True,
        time_control={"startup_s": 60.0, "move_s": 10.0, "bank_s": 60.0},
        limits={},
        seats=seats,
        instance=f"bench-isolation-{os.getpid()}",
    )


def start_to_ready(backend: DockerBackend, code: Path) -> float:
    began = time.perf_counter()
    channel = backend.start(code, label="bench-isolation-ready", limits=Limits())
    try:
        assert channel.recv(time.monotonic() + 60) == b"ready"
        return time.perf_counter() - began
    finally:
        channel.close()


def match_seconds(
    backend: DockerBackend, lifecycle: runner.Lifecycle, seed: int, games: int
) -> float:
    began = time.perf_counter()
    outcome, _ = runner.play(plan(seed, games), lambda: backend, lifecycle=lifecycle)
    assert not outcome["faults"], outcome["faults"]
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--handovers", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-isolation-") as folder:
        Path(folder).chmod(0o711)  # reachable by a remapping engine (docs/deploy.md)
        code = Path(folder) / "bot"
        code.mkdir(mode=0o755)
        (code / "main.py").write_text(READY)
        modes: dict[str, tuple[DockerBackend, runner.Lifecycle]] = {
            "runc pool": (DockerBackend(pipe_root=Path(folder) / "pipes"), "pool"),
            "runc fresh": (DockerBackend(pipe_root=None, clean=False), "fresh"),
            "runsc fresh": (DockerBackend(pipe_root=None, clean=False, runtime="runsc"), "fresh"),
        }
        ready: dict[str, list[float]] = {mode: [] for mode in modes}
        matches: dict[str, list[float]] = {mode: [] for mode in modes}
        for backend, lifecycle in modes.values():  # warm-up: images, caches, the pool
            match_seconds(backend, lifecycle, 1, args.games)
        for round_ in range(args.rounds):
            for mode, (backend, lifecycle) in modes.items():
                if mode != "runc pool":
                    ready[mode].append(start_to_ready(backend, code))
                matches[mode].append(match_seconds(backend, lifecycle, 100 + round_, args.games))
        report(ready, matches)
        for mode in ("runc pool", "runc fresh", "runsc fresh"):
            with channels.probing(modes[mode][0], label="bench-isolation") as prober:
                for channel in ("dentry", "pagecache"):
                    found = channels.measure(
                        prober, channel, "across", args.handovers, channels.BITS[channel]
                    )
                    print(
                        f"{mode}: {channel} across containers: {found.error_rate:.1%} of "
                        f"{found.bits} bits wrong, {found.capacity:.1f} bits a hand-over"
                    )
        modes["runc pool"][0].pool.close()
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


def report(ready: dict[str, list[float]], matches: dict[str, list[float]]) -> None:
    for mode in matches:
        start = f"start-to-ready {statistics.median(ready[mode]):.3f} s, " if ready[mode] else ""
        print(f"{mode}: {start}match {statistics.median(matches[mode]):.2f} s (median)")
    runc, runsc = "runc fresh", "runsc fresh"
    print(
        f"runsc / runc: start-to-ready "
        f"{statistics.median(ready[runsc]) / statistics.median(ready[runc]):.2f}x, match (fresh) "
        f"{statistics.median(matches[runsc]) / statistics.median(matches[runc]):.2f}x; "
        f"runsc fresh / runc pool (the default): match "
        f"{statistics.median(matches[runsc]) / statistics.median(matches['runc pool']):.2f}x"
    )


if __name__ == "__main__":
    main()
