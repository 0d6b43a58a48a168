"""Waking the dispatcher from a room below it.

Competitions (a tournament started, cancelled or resumed; a ladder paused) change what
waits to be played, and a started tournament's schedule is built by a task, but they sit
below the play room that sends the work. They call
``dispatch_after_commit`` here; the dispatcher (tournaments.play.dispatch) listens on
``work_changed`` (connected when the app is ready) and fills the free slots once the
transaction commits, as it did when they called it directly.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.dispatch import Signal

#: Sent after a commit that changed the queued work; the dispatcher's receiver dispatches.
work_changed = Signal()
#: Sent after a commit that started a tournament (``tournament_id``): the receiver
#: (tournaments.play.schedule_builds) sends the task that writes its schedule.
schedule_wanted = Signal()


def dispatch_after_commit() -> None:
    """Run the dispatcher once the current transaction commits: once, however often the
    transaction asks (issue 45: a duel's match that ended and queued the next round woke
    it twice, and the second pass read every queue again to find nothing to send).

    A request made inside a savepoint that is rolled back goes with it; one skipped here
    because an earlier request is pending was made inside every savepoint still open
    around that earlier one, so it could not outlive it."""
    if not _pending(_work_changed):
        transaction.on_commit(_work_changed)


def _work_changed() -> None:
    work_changed.send(sender=None)


def _pending(hook: Callable[[], None]) -> bool:
    """Whether ``hook`` already waits for the current transaction's commit."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        return False  # autocommit: on_commit runs it at once
    return any(func is hook for _, func, _ in connection.run_on_commit)


def schedule_after_commit(tournament_id: int) -> None:
    """Have the tournament's schedule built by a task once the current transaction commits."""
    transaction.on_commit(lambda: schedule_wanted.send(sender=None, tournament_id=tournament_id))
