"""Bot containers kept across matches, each serving at most one seating of a match.

Starting a container costs the engine 0.2-0.5 s and tens of milliseconds of CPU; a
duplicate Big Two match has 16 seatings, one at six seats 36. A reused container
(``sandbox.reuse``) runs a fresh bot process per seating, killing every process and
emptying /tmp in between; what it cannot wipe are two counters a bot could move in one
seating and read in the next (the next PID, the next /tmp inode: docs/sandbox.md). So
the rule here is that **no container serves two seatings of the same match**: a bot
can never carry anything about a deal to the deal's next rotation, not even through a
counter, because that rotation runs in a container that has not seen this match.

Between matches a container goes back to its worker's pool (``ContainerPool``), clean,
keyed by everything that makes it what it is (the bot's code, runtime, image and
limits): the next match of the same bot takes it instead of starting one. What a
pooled container can carry from one match to a later one of the same bot is the two
counters' worth of bits about an earlier match, whose deals are not this match's.

Bounded: at most ``PoolLimits.size`` idle containers per worker process (the least
recently used go first), none idle longer than ``idle_s``, none older than ``age_s``
or past ``seatings`` seatings. A container whose clean-up failed, or that was killed
(its wall clock, its memory), is never given back.

``PoolTable`` is a match's view of it: ``take`` gives each block fresh processes in
containers this match has not used, and fetches the next block's in the background.
"""

from __future__ import annotations

import functools
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from sandbox.channel import Channel
from sandbox.parallel import SeatStart, together
from sandbox.reuse import ReusedSeat, SeatBroken

#: How long ``PoolTable.close`` waits for the match's retired containers to be gone.
REMOVAL_TIMEOUT_S: Final = 60.0


@dataclass(frozen=True)
class PoolLimits:
    """How much a worker process's pool may hold (``from_env``: JUDGE_SANDBOX_POOL_*)."""

    #: Idle containers kept (each holds a sleeping supervisor and its shim: about 12 MB
    #: of the host's memory). 48: a tournament of eight bots at six seats, each bot
    #: needing one container per seating of a match.
    size: int = 48
    #: An idle container older than this (seconds) is removed.
    idle_s: float = 300.0
    #: A container is retired once this old (seconds): its expiry label says so too.
    age_s: float = 3600.0
    #: ... or once it has served this many seatings.
    seatings: int = 1000

    @classmethod
    def from_env(cls) -> PoolLimits:
        """JUDGE_SANDBOX_POOL_SIZE (0: keep nothing between matches) and
        JUDGE_SANDBOX_POOL_IDLE_SECONDS, else the defaults; ValueError naming a bad one."""
        size = os.environ.get("JUDGE_SANDBOX_POOL_SIZE", "")
        idle = os.environ.get("JUDGE_SANDBOX_POOL_IDLE_SECONDS", "")
        return cls(
            size=int(_number("JUDGE_SANDBOX_POOL_SIZE", size, cls.size, 0, 10_000)),
            idle_s=_number("JUDGE_SANDBOX_POOL_IDLE_SECONDS", idle, cls.idle_s, 1, 86_400),
        )


def _number(name: str, text: str, default: float, low: float, high: float) -> float:
    text = text.strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not low <= value <= high:
        raise ValueError(f"{name}={text!r}: give a number from {low:g} to {high:g}")
    return value


class ContainerPool:
    """Idle, clean reused containers of one worker process, by key; thread-safe."""

    def __init__(self, limits: PoolLimits | None = None) -> None:
        self.limits = limits or PoolLimits.from_env()
        self._idle: OrderedDict[int, tuple[str, float, ReusedSeat]] = OrderedDict()
        self._lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._closed = threading.Event()
        #: Containers taken from the pool / started because none was idle (for benches).
        self.hits = 0
        self.misses = 0

    def take(self, key: str, match: frozenset[str] = frozenset()) -> ReusedSeat | None:
        """The most recently used idle container of ``key`` that has served none of
        ``match`` (the match's identities: a match played again, its seed in another
        match), if any; it leaves the pool."""
        self.sweep()
        with self._lock:
            for ident in reversed(self._idle):
                key_of, _, seat = self._idle[ident]
                if key_of == key and not seat.served & match:
                    self.hits += 1
                    return self._idle.pop(ident)[2]
            self.misses += 1
        return None

    def give(self, key: str, seat: ReusedSeat) -> None:
        """``seat``, clean after a match, back to the pool (or ended, if it may not be)."""
        if seat.broken or not self._fit(seat) or self._closed.is_set():
            seat.close()
            return
        with self._lock:
            self._idle[id(seat)] = (key, time.monotonic(), seat)
            surplus = [self._idle.popitem(last=False)[1][2] for _ in self._excess()]
        for old in surplus:
            old.close()
        self._start_sweeper()

    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def containers(self) -> list[ReusedSeat]:
        """The idle containers (a bench reads their CPU seconds)."""
        with self._lock:
            return [seat for _, _, seat in self._idle.values()]

    def sweep(self) -> None:
        """End the idle containers that idled too long or are too old."""
        now = time.monotonic()
        with self._lock:
            stale = [
                ident
                for ident, (_, since, seat) in self._idle.items()
                if now - since > self.limits.idle_s or not self._fit(seat)
            ]
            ended = [self._idle.pop(ident)[2] for ident in stale]
        for seat in ended:
            seat.close()

    def close(self, timeout: float = REMOVAL_TIMEOUT_S) -> bool:
        """End every idle container and wait until they are gone (a worker stopping)."""
        self._closed.set()
        with self._lock:
            ended = [seat for _, _, seat in self._idle.values()]
            self._idle.clear()
        for seat in ended:
            seat.close()
        deadline = time.monotonic() + timeout
        return all(seat.wait_removed(max(0.0, deadline - time.monotonic())) for seat in ended)

    def _fit(self, seat: ReusedSeat) -> bool:
        young = time.monotonic() - seat.born < self.limits.age_s
        return young and seat.seatings < self.limits.seatings

    def _excess(self) -> range:
        return range(max(0, len(self._idle) - self.limits.size))

    def _start_sweeper(self) -> None:
        if self._sweeper is None:
            self._sweeper = threading.Thread(target=self._sweep_often, daemon=True, name="pool")
            self._sweeper.start()

    def _sweep_often(self) -> None:
        while not self._closed.wait(min(30.0, self.limits.idle_s / 2)):
            self.sweep()


@runtime_checkable
class Pools(Protocol):
    """A backend whose bot containers can be pooled (the Docker one)."""

    pool: ContainerPool

    def pool_key(self, seat: SeatStart) -> str:
        """What makes ``seat``'s container interchangeable with another's."""
        ...

    def start_pooled(self, seat: SeatStart, label: str) -> ReusedSeat:
        """A new container for ``seat``'s bot with no bot process yet, labelled ``label``
        (not the match's: it will serve other matches), with a clock per seating."""
        ...


class PoolTable:
    """One match's seats from the pool: ``take`` starts a fresh bot process per seat in a
    container this match has not used (the pool's, or a new one), and prepares the next
    block's in the background; ``close`` gives every clean one back.

    ``seat(i)`` says how to start bot ``i``; ``blocks`` is how many blocks the match has;
    ``label`` is what new containers are labelled (the deployment's pool, not a match);
    ``match``: the match's identities (its id, its seed): a container that served any of
    them is not taken again, so a match played again (resumed, retried) or another match
    dealt from the same seed never meets a container that saw those deals.
    """

    def __init__(
        self,
        backend: Pools,
        seat: Callable[[int], SeatStart],
        blocks: int,
        label: str,
        match: frozenset[str],
    ) -> None:
        self.backend = backend
        self.seat = seat
        self.blocks_left = blocks
        self.label = label
        self.match = match
        self._keys: dict[int, str] = {}
        self._used: list[tuple[str, ReusedSeat]] = []
        self._channels: list[Channel] = []
        self._ahead: Future[dict[int, ReusedSeat]] | None = None
        self._fetcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pool-ahead")

    def take(self, indices: list[int]) -> dict[int, Channel]:
        """Bots ``indices`` for the block that begins now, their processes started."""
        self.blocks_left -= 1
        ready = self._collect()
        for index in [j for j in ready if j not in indices]:  # retired meanwhile: unused
            self.backend.pool.give(self._key(index), ready.pop(index))
        try:
            ready.update(self._acquire([j for j in indices if j not in ready]))
        except BaseException:
            for index, container in ready.items():
                self.backend.pool.give(self._key(index), container)
            raise
        for index, container in ready.items():
            self._claim(index, container)
        channels: dict[int, Channel] = {}
        try:
            for index in indices:
                channels[index] = self._spawn(index, ready[index])
        except BaseException:
            for channel in channels.values():
                channel.close()
            raise
        self._channels.extend(channels.values())
        if self.blocks_left > 0:
            self._ahead = self._fetcher.submit(self._acquire, list(indices))
        return channels

    def close(self) -> bool:
        """End the match's seatings and give its clean containers back; whether the
        retired ones were gone within ``REMOVAL_TIMEOUT_S``."""
        try:
            unused = self._collect()
        except Exception:  # a failed fetch left nothing to give back
            unused = {}
        self._fetcher.shutdown(wait=True)
        for channel in self._channels:
            channel.close()  # the referee closed its own; this cleans the rest
        for index, container in unused.items():
            self.backend.pool.give(self._key(index), container)
        retired = [container for _, container in self._used if container.broken]
        for key, container in self._used:
            self.backend.pool.give(key, container)
        deadline = time.monotonic() + REMOVAL_TIMEOUT_S
        return all(c.wait_removed(max(0.0, deadline - time.monotonic())) for c in retired)

    def _spawn(self, index: int, container: ReusedSeat) -> Channel:
        try:
            return container.spawn(self.seat(index).env)
        except SeatBroken:  # that container is being removed: a new one, once
            fresh = self._claim(index, self.backend.start_pooled(self.seat(index), self.label))
            return fresh.spawn(self.seat(index).env)

    def _claim(self, index: int, container: ReusedSeat) -> ReusedSeat:
        """``container`` now serves this match: marked so, and given back at ``close``."""
        container.served |= self.match
        self._used.append((self._key(index), container))
        return container

    def _key(self, index: int) -> str:
        if index not in self._keys:
            self._keys[index] = self.backend.pool_key(self.seat(index))
        return self._keys[index]

    def _acquire(self, indices: list[int]) -> dict[int, ReusedSeat]:
        """A container per index: an idle one of the pool, else new ones, together."""
        found: dict[int, ReusedSeat] = {}
        for index in indices:
            container = self.backend.pool.take(self._key(index), self.match)
            if container is not None:
                found[index] = container
        missing = [j for j in indices if j not in found]
        starts = [
            functools.partial(self.backend.start_pooled, self.seat(j), self.label) for j in missing
        ]
        try:
            found.update(zip(missing, together(starts), strict=True))
        except BaseException:
            for index, container in found.items():  # taken, never used: back they go
                self.backend.pool.give(self._key(index), container)
            raise
        return found

    def _collect(self) -> dict[int, ReusedSeat]:
        ahead, self._ahead = self._ahead, None
        return ahead.result() if ahead is not None else {}
