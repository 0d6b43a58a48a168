"""Measure what crosses between bots through the host's kernel: ``python -m sandbox.channels``.

For an operator, on a deployment's own engine and image: each covert channel of
``sandbox.channel_probe`` (dentry cache of the image's lower layer, page cache, /tmp's
times, the PID and inode counters) is used by a sender bot and a receiver bot, as an
uploaded bot could, through the real backend and the pool's containers
(``DockerBackend.start_reused``: a supervisor as PID 1, a fresh process per seating,
every process killed and /tmp emptied and its times reset between seatings), in two
scopes:

- ``within``: the receiver runs in the sender's container, in its next seating (what
  the pool's containers carry from one match of a bot to its next; and the ``reuse``
  lifecycle's seatings of one match);
- ``across``: the receiver runs in another container of the same image (what crosses
  between the rotations of a deal, and between two seats of one table, in every
  lifecycle).

Each hand-over sends a random message; the bits the receiver reads are compared with it.
Reported per channel and scope: the bit error rate, the capacity in bits per hand-over
(the message's length times one minus the binary entropy of the error rate: what a
sender could carry with perfect coding), the messages read exactly, and bits per second
of the two bots' work and of the hand-over's wall clock (the seatings' start and clean
included), with the host's load average. The counters read a value with an offset (the
processes and files made between the seatings): the first ``CALIBRATION`` hand-overs of
each learn it, as an attacker would in a trial run, and are not counted.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from sandbox.channel import Channel, ChannelClosed, ChannelTimeout
from sandbox.docker_backend import DockerBackend, pipe_root_from_env
from sandbox.limits import Limits
from sandbox.pipes import temporary_root

PROBE: Final = Path(__file__).with_name("channel_probe.py")
SCOPES: Final = ("within", "across")
#: The default message length of each channel, in bits.
BITS: Final = {"dentry": 1024, "pagecache": 256, "tmptimes": 8, "pids": 8, "inodes": 12}
#: The counters, whose offset the first hand-overs learn.
COUNTERS: Final = ("pids", "inodes")
CALIBRATION: Final = 3
#: The longest a probe may take to answer (seconds).
PROBE_TIMEOUT_S: Final = 120.0
MAX_BITS: Final = 3000  # the message travels in the seating's environment (4,000 bytes)
MAX_HANDOVERS: Final = 1000


@dataclasses.dataclass
class Measurement:
    """One channel in one scope: what its hand-overs carried and what they cost."""

    channel: str
    scope: str
    bits: int
    handovers: int = 0
    bit_errors: int = 0
    exact: int = 0
    work_s: list[float] = dataclasses.field(default_factory=list)
    wall_s: list[float] = dataclasses.field(default_factory=list)

    @property
    def error_rate(self) -> float:
        return self.bit_errors / max(1, self.handovers * self.bits)

    @property
    def capacity(self) -> float:
        """Bits a hand-over carries at this error rate (a binary symmetric channel)."""
        p = min(self.error_rate, 0.5)
        entropy = 0.0 if p == 0 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
        return self.bits * (1 - entropy)

    def per_second(self, seconds: list[float]) -> float:
        return self.capacity / statistics.median(seconds) if seconds else 0.0

    def row(self) -> dict[str, object]:
        return {
            "channel": self.channel,
            "scope": self.scope,
            "bits_sent": self.bits,
            "handovers": self.handovers,
            "bit_error_rate": round(self.error_rate, 4),
            "bits_per_handover": round(self.capacity, 1),
            "messages_exact": self.exact,
            "bits_per_second_of_work": round(self.per_second(self.work_s), 1),
            "bits_per_second_of_wall_clock": round(self.per_second(self.wall_s), 1),
            "work_s_median": round(statistics.median(self.work_s), 4) if self.work_s else None,
            "wall_s_median": round(statistics.median(self.wall_s), 3) if self.wall_s else None,
        }


class ProbeFailed(RuntimeError):
    """A probe bot gave no result (its log says why)."""


Spawn = Callable[[dict[str, str]], Channel]


class Prober:
    """Sends and receives through one channel with the backend's pooled containers, or,
    where it cannot pool (no pipe root: the attach stream, as under gVisor), a fresh
    container for each seating (``across`` only: no container serves two seatings)."""

    def __init__(self, backend: DockerBackend, code: Path, label: str) -> None:
        self.backend = backend
        self.code = code
        self.label = label
        self.limits = Limits(pids=64, tmp_mb=16)

    @property
    def pooled(self) -> bool:
        return self.backend.can_reuse(self.code)

    def scopes(self) -> tuple[str, ...]:
        return SCOPES if self.pooled else ("across",)

    @contextlib.contextmanager
    def seats(self, scope: str) -> Iterator[tuple[Spawn, Spawn]]:
        """How the sender and the receiver start: in one pooled container (within), in
        two (across), or each in a fresh container (no pipe root)."""
        if scope not in self.scopes():
            raise ValueError(f"scope {scope!r} needs the pool's containers (a pipe root, runc)")
        if not self.pooled:
            yield self._fresh, self._fresh
            return
        first = self.backend.start_reused(self.code, label=f"{self.label}-a", limits=self.limits)
        second = first
        try:
            if scope == "across":
                second = self.backend.start_reused(
                    self.code, label=f"{self.label}-b", limits=self.limits
                )
            yield first.spawn, second.spawn
        finally:
            for seat in {id(first): first, id(second): second}.values():
                seat.close()
                seat.wait_removed(60)

    def _fresh(self, env: dict[str, str]) -> Channel:
        label = f"{self.label}-{uuid.uuid4().hex[:6]}"
        return self.backend.start(self.code, label=label, limits=self.limits, env=env)

    def handover(
        self, sender: Spawn, receiver: Spawn, channel: str, message: str
    ) -> tuple[str, float, float]:
        """The bits read, the bots' seconds of work, the hand-over's wall seconds."""
        key = uuid.uuid4().hex[:12]
        common = {"PROBE_CHANNEL": channel, "PROBE_BITS": str(len(message)), "PROBE_KEY": key}
        began = time.perf_counter()
        sent = result(sender({**common, "PROBE_ROLE": "send", "PROBE_MESSAGE": message}))
        read = result(receiver({**common, "PROBE_ROLE": "receive"}))
        wall = time.perf_counter() - began
        return str(read["bits"]), float(sent["seconds"]) + float(read["seconds"]), wall


def result(channel: Channel) -> dict[str, Any]:
    """The probe's RESULT line; the channel is closed (the seating cleaned) after it."""
    deadline = time.monotonic() + PROBE_TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            try:
                line = channel.recv(deadline)
            except (ChannelTimeout, ChannelClosed):
                break
            if line.startswith(b"RESULT "):
                found: dict[str, Any] = json.loads(line[len(b"RESULT ") :])
                return found
        raise ProbeFailed(f"no result from the probe; its log: {channel.stderr()[-2000:]!r}")
    finally:
        channel.close()


def measure(prober: Prober, channel: str, scope: str, handovers: int, bits: int) -> Measurement:
    """``handovers`` random messages of ``bits`` bits through ``channel`` in ``scope``."""
    found = Measurement(channel, scope, bits)
    offsets: collections.Counter[int] = collections.Counter()
    calibrating = CALIBRATION if channel in COUNTERS else 0
    with prober.seats(scope) as (sender, receiver):
        for turn in range(calibrating + handovers):
            message = "".join(random.choice("01") for _ in range(bits))
            read, work, wall = prober.handover(sender, receiver, channel, message)
            if turn < calibrating:
                offsets[(int(read, 2) - int(message, 2)) % (1 << bits)] += 1
                continue
            if offsets:
                shifted = (int(read, 2) - offsets.most_common(1)[0][0]) % (1 << bits)
                read = format(shifted, f"0{bits}b")
            errors = sum(a != b for a, b in zip(message, read.ljust(bits, "?"), strict=True))
            found.handovers += 1
            found.bit_errors += errors
            found.exact += errors == 0
            found.work_s.append(work)
            found.wall_s.append(wall)
    return found


@contextlib.contextmanager
def probing(
    backend: DockerBackend | None = None,
    label: str = "channels",
    *,
    fresh: bool = False,
    runtime: str | None = None,
) -> Iterator[Prober]:
    """A prober on ``backend`` (default: the deployment's engine, with JUDGE_PIPE_ROOT or
    a pipe root of its own, or none if ``fresh``; the OCI ``runtime`` given, else the
    deployment's), the probe bot in a folder of its own, its containers labelled from
    ``label``; all removed after."""
    own_root = None
    folder = Path(tempfile.mkdtemp(prefix="channel-probe-"))
    try:
        if backend is None:
            root = None if fresh else pipe_root_from_env()
            if root is None and not fresh:
                root = own_root = temporary_root("channels-")
            backend = DockerBackend(pipe_root=root, clean=False, runtime=runtime)
        shutil.copyfile(PROBE, folder / "main.py")
        folder.chmod(0o755)
        yield Prober(backend, folder, f"{label}-{uuid.uuid4().hex[:8]}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if own_root is not None:
            shutil.rmtree(own_root, ignore_errors=True)


def report(rows: Sequence[Measurement], load: tuple[float, float]) -> str:
    """A table of the measurements, with the load average before and after."""
    lines = [
        f"load average {load[0]:.1f} before, {load[1]:.1f} after (1 min; {os.cpu_count()} CPUs)",
        "channel    scope   sent  error   bits/hand-over  exact  bits/s work  bits/s wall",
    ]
    for m in rows:
        lines.append(
            f"{m.channel:<10} {m.scope:<7} {m.bits:>5} {m.error_rate:>6.1%} "
            f"{m.capacity:>15.1f} {m.exact:>3}/{m.handovers:<3}"
            f"{m.per_second(m.work_s):>12.1f} {m.per_second(m.wall_s):>12.1f}"
        )
    return "\n".join(lines)


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m sandbox.channels", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--channels", default=",".join(BITS), help="comma-separated")
    parser.add_argument("--scopes", default=",".join(SCOPES), help="within, across")
    parser.add_argument("--handovers", type=int, default=10, help="per channel and scope")
    parser.add_argument("--bits", type=int, default=0, help="message length (0: each's own)")
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="a fresh container per seating over the attach stream (across only), "
        "instead of the pool's containers",
    )
    parser.add_argument("--runtime", default=None, help="the engine's OCI runtime (runsc)")
    args = parser.parse_args(argv)
    args.channels = [c for c in args.channels.split(",") if c]
    args.scopes = [s for s in args.scopes.split(",") if s]
    for name in args.channels:
        if name not in BITS:
            parser.error(f"unknown channel {name!r}: choose among {', '.join(BITS)}")
    for name in args.scopes:
        if name not in SCOPES:
            parser.error(f"unknown scope {name!r}: choose among {', '.join(SCOPES)}")
    if not 1 <= args.handovers <= MAX_HANDOVERS:
        parser.error(f"--handovers must be from 1 to {MAX_HANDOVERS}")
    if not 0 <= args.bits <= MAX_BITS:
        parser.error(f"--bits must be from 1 to {MAX_BITS} (0: each channel's default)")
    if args.bits > 16 and set(args.channels) & {"tmptimes", *COUNTERS}:
        parser.error("--bits above 16 is for dentry and pagecache only (counters move 2**bits)")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    before = os.getloadavg()[0]
    rows = []
    with probing(fresh=args.fresh, runtime=args.runtime) as prober:
        for channel in args.channels:
            for scope in [s for s in args.scopes if s in prober.scopes()]:
                try:
                    found = measure(
                        prober, channel, scope, args.handovers, args.bits or BITS[channel]
                    )
                except ProbeFailed as error:  # the others are still worth measuring
                    print(f"{channel} {scope}: {error}", file=sys.stderr)
                    continue
                rows.append(found)
                if args.json:
                    print(json.dumps({**found.row(), "load_average": os.getloadavg()[0]}))
                    sys.stdout.flush()
    if not args.json:
        print(report(rows, (before, os.getloadavg()[0])))


if __name__ == "__main__":
    main()
