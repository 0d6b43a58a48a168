"""Noticing that the process playing a match was stalled: a watchdog whose ticks come late.

A bot's wall clock is kept by the referee's process. When that process is stopped (a
SIGSTOP, a frozen virtual machine, a host swapping) or starved of the CPU, the wall clock
runs on while nobody reads the bot's answer, so a bot that answered in time looks late.
Its CPU clock is not fooled (the bot's own CPU seconds do not grow while it waits), but
the generous wall clock every bot also has (a bot that sleeps must still time out) is.

``StallWatch`` is a thread that wakes every ``tick_s``. A gap between two of its ticks
longer than ``stall_s`` means the process, or the whole host, did not run it for that
long: a stall. ``stalled(start, end)`` says whether a stall overlapped that window, the
gap still going on included (the referee's thread may wake before the watchdog's after a
SIGCONT), so a timeout measured across a stall is put down to the host, not the bot.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Final

#: How often the watchdog wakes (seconds).
TICK_S: Final = 0.1
#: A gap between ticks longer than this is a stall (seconds): ten ticks missed in a row
#: (docs/tournaments.md, "Clocks", has the gaps measured on a loaded machine).
STALL_S: Final = 1.0
#: How many stalls are remembered (the oldest are forgotten first).
KEPT: Final = 64


class StallWatch:
    """A watchdog thread of this process (see the module docstring); ``start`` it, ask
    ``stalled``, ``stop`` it. ``clock`` must be the referee's (time.monotonic)."""

    def __init__(
        self,
        tick_s: float = TICK_S,
        stall_s: float = STALL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tick_s = tick_s
        self.stall_s = stall_s
        self.clock = clock
        self._lock = threading.Lock()
        self._last = clock()
        self._stalls: deque[tuple[float, float]] = deque(maxlen=KEPT)
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> StallWatch:
        self._last = self.clock()
        self._thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stopped.wait(self.tick_s):
            self.tick()

    def tick(self) -> None:
        """One tick of the watchdog: a gap since the last one past ``stall_s`` is kept."""
        now = self.clock()
        with self._lock:
            if now - self._last > self.stall_s:
                self._stalls.append((self._last, now))
            self._last = now

    def stalls(self) -> list[tuple[float, float]]:
        """The stalls seen so far, as (start, end) clock values, the gap going on now
        included when it is already longer than ``stall_s``."""
        now = self.clock()
        with self._lock:
            found = list(self._stalls)
            if now - self._last > self.stall_s:
                found.append((self._last, now))
        return found

    def stalled(self, start: float, end: float) -> str:
        """Why the window [start, end] says more about this host than about a bot: the
        stall that overlapped it, told in words; "" when none did."""
        for began, ended in self.stalls():
            if began < end and ended > start:
                return (
                    f"the worker was stalled for {ended - began:.1f} s during it "
                    f"(its watchdog, due every {self.tick_s:g} s, did not run)"
                )
        return ""
