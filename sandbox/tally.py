"""A count of events in this process that another part reads and resets: the bot
containers the Docker backend started, for the service's metrics (which add each
process's count to a total every process shares, tournaments.play.ops_counters)."""

from __future__ import annotations

import threading


class Tally:
    """A thread-safe count: ``add`` from any thread, ``take`` returns it and starts over."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def add(self, n: int = 1) -> None:
        with self._lock:
            self._count += n

    def take(self) -> int:
        with self._lock:
            count, self._count = self._count, 0
            return count


#: Bot containers started by this process's Docker backends (fresh, warm and pooled).
CONTAINER_STARTS = Tally()
