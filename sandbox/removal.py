"""Removing bot containers off the match's critical path, a few at a time.

Killing and deleting a container costs the engine 60-150 ms. A duplicate match closes a
table's containers after every seating; waiting for that would stall the next seating
for no gain, since the next seating's bots run in containers of their own (fresh
namespaces, their own ``/tmp``) that the dying ones cannot reach. So the removal is
handed to a small pool of threads here, and whoever needs "gone" (the end of a match, a
test) waits for exactly the removals it cares about.

Bounded: at most ``workers`` removals run at once and at most ``backlog`` wait; past
that, ``submit`` removes in the caller's thread (back-pressure on a slow engine rather
than an unbounded queue of live containers).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait

log = logging.getLogger(__name__)


class Removals:
    """A bounded background queue of removal jobs (each a callable that must not hang)."""

    def __init__(self, *, workers: int = 4, backlog: int = 64) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="remove-bot")
        self._slots = threading.BoundedSemaphore(workers + backlog)

    def submit(self, job: Callable[[], None]) -> Future[None]:
        """Run ``job`` in the background (in this thread when the backlog is full)."""
        if not self._slots.acquire(blocking=False):
            done: Future[None] = Future()
            _run(job)
            done.set_result(None)
            return done
        try:
            return self._pool.submit(self._release_after, job)
        except RuntimeError:  # the pool is shut down (interpreter exit): do it here
            self._slots.release()
            done = Future()
            _run(job)
            done.set_result(None)
            return done

    def _release_after(self, job: Callable[[], None]) -> None:
        try:
            _run(job)
        finally:
            self._slots.release()


def _run(job: Callable[[], None]) -> None:
    try:
        job()
    except Exception:  # a failed removal is logged; remove_leftovers() catches the rest
        log.exception("removing a bot container failed; remove_leftovers() will clean up")


def wait_all(futures: Iterable[Future[None]], timeout: float) -> bool:
    """Whether every one of ``futures`` finished within ``timeout`` seconds."""
    _, pending = wait(list(futures), timeout=timeout)
    return not pending
