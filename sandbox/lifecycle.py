"""A match's containers, started one seating ahead and removed behind it.

A duplicate match plays each seating with fresh bot processes, so that no bot can
remember a deal when it comes back with the seats rotated. Here every seating still gets
a fresh container per bot (fresh namespaces, an empty ``/tmp``, a new cgroup: nothing of
the last seating survives to be read), but the costs move off the match's critical path:

- while seating ``k`` plays, the containers of seating ``k + 1`` are created and started
  in the background, *gated* (``Prestarts.prestart``): up, but the bot's program is held
  back until its seating begins, so it has run none of its code and a bot that retires
  meanwhile never runs again;
- a closed seat's container is removed in the background (``sandbox.removal``);
- ``close`` waits until every container of the match is gone, so a finished match leaves
  nothing behind.

``WarmTable.take`` is what the referee's announcement of a block calls.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Final

from sandbox.backend import Prestarts, Reuses, WarmSeat
from sandbox.channel import Channel
from sandbox.parallel import SeatStart, together
from sandbox.reuse import ReusedSeat, SeatBroken

#: How long ``close`` waits for the match's containers to be gone (the engine's API
#: timeout and removal wait, with room to spare).
REMOVAL_TIMEOUT_S: Final = 60.0


def prestart_many(backend: Prestarts, seats: Sequence[SeatStart]) -> list[WarmSeat]:
    """Prestart every seat at once (threads); all of them or none (``start_many``'s rule)."""
    return together([functools.partial(_prestart, backend, seat) for seat in seats])


def _prestart(backend: Prestarts, seat: SeatStart) -> WarmSeat:
    return backend.prestart(seat.code, label=seat.label, limits=seat.limits, env=seat.env)


class WarmTable:
    """One match's seats: ``take`` gives each block its bots, started, and prepares the
    next block's in the background; ``close`` ends them all.

    ``seat(i)`` says how to start bot ``i``; ``blocks`` is how many blocks the match has
    (``judge.referee.blocks``); ``watch`` is told of every channel made (a stop signal
    closes them).
    """

    def __init__(
        self,
        backend: Prestarts,
        seat: Callable[[int], SeatStart],
        blocks: int,
        watch: Callable[[list[Channel]], None] | None = None,
    ) -> None:
        self.backend = backend
        self.seat = seat
        self.blocks_left = blocks
        self.watch = watch
        self._ahead: Future[dict[int, WarmSeat]] | None = None
        self._made: list[WarmSeat] = []
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prestart")

    def take(self, indices: list[int]) -> dict[int, WarmSeat]:
        """Bots ``indices`` for the block that begins now, their programs started."""
        self.blocks_left -= 1
        ready = self._collect()
        for index in [j for j in ready if j not in indices]:  # retired meanwhile
            ready.pop(index).close()
        missing = [j for j in indices if j not in ready]
        ready.update(zip(missing, self._prestart(missing), strict=True))
        for index in indices:
            ready[index].go()
        if self.blocks_left > 0:
            self._ahead = self._pool.submit(self._prestart_dict, list(indices))
        return {index: ready[index] for index in indices}

    def close(self) -> bool:
        """Close what was prepared and not taken, and wait until every container of the
        table is gone; whether they all went within ``REMOVAL_TIMEOUT_S``."""
        with contextlib.suppress(Exception):  # a failed prestart left nothing to close
            for channel in self._collect().values():
                channel.close()
        self._pool.shutdown(wait=True)
        for channel in self._made:
            channel.close()  # the referee closed its own; this closes the rest
        deadline = time.monotonic() + REMOVAL_TIMEOUT_S
        return all(
            channel.wait_removed(max(0.0, deadline - time.monotonic())) for channel in self._made
        )

    def _collect(self) -> dict[int, WarmSeat]:
        ahead, self._ahead = self._ahead, None
        return ahead.result() if ahead is not None else {}

    def _prestart(self, indices: list[int]) -> list[WarmSeat]:
        channels = prestart_many(self.backend, [self.seat(j) for j in indices])
        self._made.extend(channels)
        if self.watch is not None:
            self.watch(list[Channel](channels))
        return channels

    def _prestart_dict(self, indices: list[int]) -> dict[int, WarmSeat]:
        return dict(zip(indices, self._prestart(indices), strict=True))


class ReuseTable:
    """One match's seats with one container per bot for the whole match
    (``sandbox.reuse``; off by default, docs/sandbox.md): ``take`` starts a fresh bot
    process per seating in the bot's container, starting the containers it lacks (all
    at once: the first block, or a container retired after a failed clean); ``close``
    ends them all and waits until they are gone."""

    def __init__(self, backend: Reuses, seat: Callable[[int], SeatStart]) -> None:
        self.backend = backend
        self.seat = seat
        self._seats: dict[int, ReusedSeat] = {}
        self._made: list[ReusedSeat] = []

    def take(self, indices: list[int]) -> dict[int, Channel]:
        for index in [j for j in self._seats if j not in indices]:  # retired meanwhile
            self._seats.pop(index).close()
        missing = [j for j in indices if j not in self._seats or self._seats[j].broken]
        self._start(missing)
        channels: dict[int, Channel] = {}
        try:
            for index in indices:
                channels[index] = self._spawn(index)
        except BaseException:
            for channel in channels.values():
                channel.close()
            raise
        return channels

    def _spawn(self, index: int) -> Channel:
        try:
            return self._seats[index].spawn()
        except SeatBroken:  # that container is being removed: a new one, once
            self._start([index])
            return self._seats[index].spawn()

    def _start(self, indices: list[int]) -> None:
        if not indices:
            return
        seats = together([functools.partial(self._start_one, self.seat(j)) for j in indices])
        self._made.extend(seats)
        self._seats.update(zip(indices, seats, strict=True))

    def _start_one(self, seat: SeatStart) -> ReusedSeat:
        return self.backend.start_reused(
            seat.code, label=seat.label, limits=seat.limits, env=seat.env
        )

    def close(self) -> bool:
        for seat in self._made:
            seat.close()
        deadline = time.monotonic() + REMOVAL_TIMEOUT_S
        return all(seat.wait_removed(max(0.0, deadline - time.monotonic())) for seat in self._made)
