"""Waking the dispatcher from a room below it.

Competitions (a tournament started, cancelled or resumed; a ladder paused) change what
waits to be played, and a started tournament's schedule is built by a task, but they sit
below the play room that sends the work. They call
``dispatch_after_commit`` here; the dispatcher (tournaments.play.dispatch) listens on
``work_changed`` (connected when the app is ready) and fills the free slots once the
transaction commits, as it did when they called it directly.
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

#: Sent after a commit that changed the queued work; the dispatcher's receiver dispatches.
work_changed = Signal()
#: Sent after a commit that started a tournament (``tournament_id``): the receiver
#: (tournaments.play.schedule_builds) sends the task that writes its schedule.
schedule_wanted = Signal()


def dispatch_after_commit() -> None:
    """Run the dispatcher once the current transaction commits."""
    transaction.on_commit(lambda: work_changed.send(sender=None))


def schedule_after_commit(tournament_id: int) -> None:
    """Have the tournament's schedule built by a task once the current transaction commits."""
    transaction.on_commit(lambda: schedule_wanted.send(sender=None, tournament_id=tournament_id))
