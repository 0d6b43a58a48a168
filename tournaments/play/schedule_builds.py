"""The task that writes a started tournament's schedule (issue 42): working it out is
seconds of CPU (64 entrants at 2 seats: 2,336 tables, 8.7 s), which no request may spend;
the request only checks the start and marks the tournament scheduling
(tournaments.competitions.competition_actions.queue_start).

The task goes to the batch queue (``tournaments``) by name when the start commits
(``on_schedule_wanted``, the receiver of tournaments.wake.schedule_wanted, connected in
apps.py). It may run again (a lost worker: acks_late; the beat's resend after
LOST_AFTER): ``build_schedule`` writes on from the matches already there.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from celery import current_app, shared_task
from django.utils import timezone

from tournaments.competitions import competition_actions
from tournaments.models import Tournament

BUILD_SCHEDULE = "tournaments.tasks.build_schedule"
#: A tournament scheduling for longer than this is sent again (its task was lost).
LOST_AFTER = dt.timedelta(minutes=5)


@shared_task(acks_late=True, name=BUILD_SCHEDULE)
def build_schedule(tournament_id: int) -> str:
    """Work out and write the tournament's schedule (competition_actions.build_schedule)."""
    return competition_actions.build_schedule(tournament_id)


@shared_task(acks_late=True, name="tournaments.tasks.resend_lost_schedules")
def resend_lost_schedules() -> int:
    """Periodic (beat): send again the builds of tournaments scheduling for longer than
    LOST_AFTER (a worker lost with the message); how many were sent."""
    lost = Tournament.objects.filter(
        status=Tournament.Status.SCHEDULING, started_at__lt=timezone.now() - LOST_AFTER
    ).values_list("pk", flat=True)
    for tournament_id in lost:
        send(tournament_id)
    return len(lost)


def send(tournament_id: int) -> None:
    current_app.tasks[BUILD_SCHEDULE].apply_async((tournament_id,), queue="tournaments")


def on_schedule_wanted(tournament_id: int, **_: Any) -> None:
    """The receiver of tournaments.wake.schedule_wanted (sent after the start commits)."""
    send(tournament_id)
