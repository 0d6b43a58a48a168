"""CPU shares that follow the work: two workers with different container counts.

Two worker processes each start spinning bot containers (``while True: pass``, one CPU
each): worker A one container, worker B four (``--a``, ``--b``), on the 2-core machine,
so they ask for five CPUs. Measured in the same run, in interleaved rounds:

- ``shared``: every container under one host-wide group of weight ``BOT_SHARES`` (the
  layout before: ``JUDGE_CGROUP_PARENT`` naming one group for all workers), where each
  container weighs the same, so B's bots get four times A's CPU;
- ``worker``: the default, each worker process's containers under its own top-level
  group of weight ``BOT_SHARES`` (``sandbox.docker_backend.worker_cgroup``), so the
  two workers get comparable CPU whatever their container counts.

Printed per round: each worker's CPU seconds over the window (read from its containers'
cgroups), the ratio B/A (goal: near 1 for ``worker``), the bots' share of the machine, and
the load average. ``--load N`` keeps N host processes spinning beside them.

Run: ``python -m bench.sandbox.shares [--seconds S] [--rounds R] [--a N] [--b N]
[--load N]`` (about a minute at the defaults).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sandbox import cgroups
from sandbox.docker_backend import BOT_SHARES, DockerBackend
from sandbox.limits import Limits

SPIN = "while True: pass\n"
#: The one group of the ``shared`` layout.
SHARED = "cardjudge-bots-bench-shared"


def child(count: int, parent: str | None, seconds: float) -> None:
    """One worker: ``count`` spinning containers; their CPU over the window on stdout."""
    backend = DockerBackend(pipe_root=None, clean=False, cgroup_parent=parent)
    with tempfile.TemporaryDirectory() as folder:
        bot = Path(folder)
        (bot / "main.py").write_text(SPIN)
        label = f"bench-shares-{os.getpid()}"
        limits = Limits(cpus=1.0, wall_clock_s=seconds + 120)
        channels = [backend.start(bot, label=f"{label}-{i}", limits=limits) for i in range(count)]
        try:
            clocks = [channel.cpu_clock for channel in channels]  # type: ignore[attr-defined]
            deadline = time.monotonic() + 60
            while any((clock() or 0.0) < 0.02 for clock in clocks):  # every bot is spinning
                if time.monotonic() > deadline:
                    raise SystemExit("the bots did not start spinning within 60 s")
                time.sleep(0.05)
            print("ready", flush=True)
            sys.stdin.readline()
            before = [clock() or 0.0 for clock in clocks]
            time.sleep(seconds)
            after = [clock() or 0.0 for clock in clocks]
            cpu = sum(after) - sum(before)
            print(json.dumps({"cpu": cpu, "group": backend.cgroup_parent}), flush=True)
        finally:
            for channel in channels:
                channel.close()


def round_of(layout: str, counts: tuple[int, int], seconds: float) -> tuple[float, float, str]:
    """Both workers started, released together, measured over ``seconds``."""
    parent = cgroups.weighted_parent(SHARED, BOT_SHARES) if layout == "shared" else ""
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.sandbox.shares", "--child", str(n), "--parent",
             parent or "", "--seconds", str(seconds)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        for n in counts
    ]  # fmt: skip
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    results = []
    for worker in workers:
        assert worker.stdout is not None
        results.append(json.loads(worker.stdout.readline()))
        worker.wait(timeout=120)
    groups = " + ".join(r["group"] for r in results)
    return results[0]["cpu"], results[1]["cpu"], groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--parent", default="", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--a", type=int, default=1, help="worker A's containers")
    parser.add_argument("--b", type=int, default=4, help="worker B's containers")
    parser.add_argument("--load", type=int, default=0, help="host processes spinning")
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.parent or None, args.seconds)
        return
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.load)]
    print(f"workers: A {args.a} spinning containers, B {args.b}; {args.seconds:.0f} s a round;"
          f" {args.load} host spinners; {os.cpu_count()} CPUs")  # fmt: skip
    try:
        for number in range(args.rounds):
            for layout in ("shared", "worker"):
                load = os.getloadavg()[0]
                a, b, groups = round_of(layout, (args.a, args.b), args.seconds)
                share = (a + b) / (args.seconds * (os.cpu_count() or 1))
                print(f"round {number + 1} {layout:6}: A {a:5.2f} s  B {b:5.2f} s  "
                      f"B/A {b / max(a, 1e-9):4.2f}x  bots {share:4.0%} of the machine  "
                      f"load {load:.1f}  ({groups})", flush=True)  # fmt: skip
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
        cgroups.remove_group(SHARED)


if __name__ == "__main__":
    main()
