"""What a bot's CPU clock costs and what it buys, each beside a baseline of the same run.

- Cost: a round trip to a Docker bot (named pipes) with the referee's two CPU readings
  of the container's cgroup (``judge.bot_clock``: one when asking, one at the answer)
  beside the same round trip without them. Median per trip over interleaved rounds.
- Under load: a bot in Docker that computes 0.3 s of CPU per move, its moves' wall time
  over their CPU time, with the host as it is (baseline; the load average is printed)
  and while ``--spinners`` more processes spin on it: how much wall clock a bot may use
  while its CPU clock runs, against the wall cap of 3 times its clock.
- The worker's watchdog (``judge.stalls``): how late its 0.1 s ticks came under that
  load, against the 1 s that makes a stall.

Run: ``python -m bench.sandbox.bot_clock [--moves N] [--spinners K] [--trips T]`` (about a
minute; needs the Docker engine and the bot image).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judge.bot_clock import WALL_FACTOR
from judge.stalls import STALL_S, TICK_S
from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from sandbox.streams import StreamChannel

#: Echoes a line at once, or after computing for the CPU seconds the line says.
BOT = """\
import sys, time
for line in sys.stdin:
    burn = float(line.split()[0]) if line[:1].isdigit() else 0.0
    end = time.process_time() + burn
    while time.process_time() < end:
        pass
    sys.stdout.write(line)
    sys.stdout.flush()
"""
MESSAGE = b'{"type":"act","observation":{"hand":["As","Kd","7c"]},"legal":[0,1,2]}'


def trips(channel: StreamChannel, count: int, with_cpu: bool) -> float:
    """Seconds per round trip, reading the CPU clock twice per trip or not."""
    started = time.perf_counter()
    for _ in range(count):
        if with_cpu:
            channel.cpu_seconds()
        channel.send(MESSAGE)
        channel.recv(time.monotonic() + 10)
        if with_cpu:
            channel.cpu_seconds()
    return (time.perf_counter() - started) / count


def moves(channel: StreamChannel, count: int, burn: float) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of ``count`` moves of ``burn`` CPU seconds each."""
    spent = []
    for _ in range(count):
        cpu, wall = channel.cpu_seconds(), time.monotonic()
        channel.send(f"{burn} move".encode())
        channel.recv(time.monotonic() + 120)
        after = channel.cpu_seconds()
        assert cpu is not None and after is not None, "the container's cgroup is not visible"
        spent.append((time.monotonic() - wall, after - cpu))
    return spent


@contextmanager
def spinning(count: int) -> Iterator[None]:
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


class TickGaps:
    """The lateness of a watchdog's ticks (as ``judge.stalls`` ticks) while running."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stop.wait(TICK_S):
            now = time.monotonic()
            self.late.append(now - last - TICK_S)
            last = now

    def __enter__(self) -> TickGaps:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def ratios(spent: list[tuple[float, float]]) -> str:
    r = sorted(wall / cpu for wall, cpu in spent)
    return f"wall/CPU p50 {statistics.median(r):.2f}, max {r[-1]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--spinners", type=int, default=4)
    parser.add_argument("--trips", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as folder:
        Path(folder).chmod(0o711)  # reachable by a remapping engine (docs/deploy.md)
        code, pipes = Path(folder) / "bot", Path(folder) / "pipes"
        code.mkdir()
        pipes.mkdir()
        (code / "main.py").write_text(BOT)
        backend = DockerBackend(pipe_root=pipes, clean=False)
        channel = backend.start(code, label="bench-bot-clock", limits=Limits())
        assert isinstance(channel, StreamChannel)
        try:
            bare, timed = [], []
            for _ in range(args.rounds):
                bare.append(trips(channel, args.trips, with_cpu=False))
                timed.append(trips(channel, args.trips, with_cpu=True))
            b, t = statistics.median(bare), statistics.median(timed)
            print(
                f"round trip: {b * 1e6:.0f} us bare (baseline), {t * 1e6:.0f} us with two "
                f"CPU readings: {t / b:.2f}x (+{(t - b) * 1e6:.0f} us a move)"
            )
            idle = moves(channel, args.moves, 0.3)
            print(f"0.3 s of CPU a move, the host as it is (baseline): {ratios(idle)}")
            with spinning(args.spinners), TickGaps() as gaps:
                loaded = moves(channel, args.moves, 0.3)
            print(f"  with {args.spinners} spinning processes: {ratios(loaded)}")
            print(f"  the wall cap behind a CPU clock is {WALL_FACTOR:g}x")
            late = sorted(gaps.late)
            print(
                f"watchdog ticks under that load: late by p50 {statistics.median(late):.3f} s, "
                f"max {late[-1]:.3f} s ({len(late)} ticks; a stall is {STALL_S:g} s)"
            )
        finally:
            channel.close()
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
