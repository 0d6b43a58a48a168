"""Wall clocks that most often never ring, kept by one thread for a whole worker process.

Every seating of a pooled container has a wall clock (``sandbox.reuse``): it ends the
container if the seating outlives its limit, and is cancelled when the seating closes,
almost always long before. A ``threading.Timer`` each started a thread per seating (16
a duplicate Big Two match), which cost the worker more CPU than the rest of the
seating's clean-up; here one daemon thread waits for the earliest alarm of them all.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Final

log = logging.getLogger(__name__)

#: Once this many cancelled alarms wait in the queue (and more than half of it), it is
#: rebuilt without them: a worker sets thousands an hour, each for tens of minutes.
COMPACT_AT: Final = 1024


class Alarm:
    """One alarm: ``cancel`` it before it rings and its job never runs."""

    def __init__(self, when: float, job: Callable[[], None]) -> None:
        self.when = when
        self.job = job
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Alarms:
    """Runs each job at its time unless its alarm was cancelled: one daemon thread
    (started with the first alarm) waits for them all, and an alarm that rings runs its
    job in a thread of its own, as a Timer did (a kill that waits on a slow engine holds
    up no other); a job that raises is logged."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._queue: list[tuple[float, int, Alarm]] = []
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def set(self, delay: float, job: Callable[[], None]) -> Alarm:
        """An alarm ringing ``job`` in ``delay`` seconds."""
        alarm = Alarm(self._clock() + delay, job)
        with self._changed:
            if len(self._queue) >= COMPACT_AT:
                self._compact()
            heapq.heappush(self._queue, (alarm.when, next(self._order), alarm))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="alarms", daemon=True)
                self._thread.start()
            self._changed.notify()
        return alarm

    def waiting(self) -> int:
        """Alarms neither rung nor cancelled."""
        with self._changed:
            return sum(not alarm.cancelled for _, _, alarm in self._queue)

    def _compact(self) -> None:
        live = [entry for entry in self._queue if not entry[2].cancelled]
        if len(live) * 2 < len(self._queue):
            heapq.heapify(live)
            self._queue = live

    def _run(self) -> None:
        while True:
            alarm = self._next()
            if not alarm.cancelled:  # it may have been, between its turn coming and now
                threading.Thread(target=_ring, args=(alarm,), name="alarm", daemon=True).start()

    def _next(self) -> Alarm:
        """Wait for the earliest alarm not cancelled to be due, and take it."""
        with self._changed:
            while True:
                while self._queue and self._queue[0][2].cancelled:
                    heapq.heappop(self._queue)
                if not self._queue:
                    self._changed.wait()
                    continue
                wait = self._queue[0][0] - self._clock()
                if wait <= 0:
                    return heapq.heappop(self._queue)[2]
                self._changed.wait(wait)


def _ring(alarm: Alarm) -> None:
    try:
        alarm.job()
    except Exception:
        log.exception("an alarm's job failed")


#: The worker process's alarms.
ALARMS: Final = Alarms()
