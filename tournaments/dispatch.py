"""Fair scheduling: which match goes to the workers next.

Two Celery queues (settings.CELERY_TASK_QUEUES). ``interactive`` carries what a person
waits for: checks of new versions, quick matches, the periodic reaper. ``tournaments``
carries tournament matches, but never all of them: a tournament's matches wait in the
database (queued, ``sent_at`` null) and ``dispatch`` keeps at most TOURNAMENT_SLOTS of
them in flight (sent or running). Each free slot goes to the owner with the fewest
matches in flight, so one user's 210 matches and another's 4 share the slots evenly; with
TOURNAMENT_SLOTS below the number of worker processes, a process is always left for the
interactive queue, and a check never waits behind a tournament.

The ladder (tournaments.ladder) plays in the same slots, but only in those that no waiting
tournament match gets, and in at most LADDER_SLOTS of them: a ladder match never takes a
slot from a tournament match that is waiting (one that starts later waits at most for the
ladder matches already in flight to end).

``dispatch`` runs when a tournament starts, is cancelled or resumed, when a tournament
match ends (finished, failed, released, stopped) and from the reaper (tops up after a
lost message or a dead worker). Concurrent calls are serialised by a lock (PostgreSQL
advisory lock; SQLite serialises writers itself), so the slots are never overfilled.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Max, Min, Q, QuerySet
from django.utils import timezone

from tournaments import clocks, ladder
from tournaments.models import Match, Tournament

INTERACTIVE = "interactive"
TOURNAMENTS = "tournaments"
#: The advisory lock held while slots are counted and filled.
DISPATCH_LOCK = 0x6A756467  # "judg"

#: A tournament match that was sent and may be on a worker.
IN_FLIGHT = Q(status=Match.Status.RUNNING) | Q(status=Match.Status.QUEUED, sent_at__isnull=False)


def tournament_matches() -> QuerySet[Match]:
    return Match.objects.filter(tournament__isnull=False)


def waiting() -> QuerySet[Match]:
    """Tournament matches queued in the database, not yet given a slot."""
    return tournament_matches().filter(status=Match.Status.QUEUED, sent_at__isnull=True)


def in_flight_by_owner() -> dict[int | None, int]:
    """Matches in flight per tournament owner (None: tournaments without an owner)."""
    rows = (
        tournament_matches()
        .filter(IN_FLIGHT)
        .values("tournament__owner")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {row["tournament__owner"]: row["n"] for row in rows}


def last_served() -> dict[int | None, float]:
    """When each owner of a running tournament last had a match sent (epoch seconds)."""
    rows = (
        tournament_matches()
        .filter(tournament__status=Tournament.Status.RUNNING, sent_at__isnull=False)
        .values("tournament__owner")
        .annotate(last=Max("sent_at"))
        .order_by()
    )
    return {row["tournament__owner"]: row["last"].timestamp() for row in rows}


def waiting_owners(
    busy: dict[int | None, int], served: dict[int | None, float]
) -> list[int | None]:
    """Owners with matches waiting, the one who gets the next slot first: fewest in
    flight, then the one served least recently (never served: first), then the one whose
    match has waited longest."""
    rows = waiting().values("tournament__owner").annotate(first=Min("id")).order_by()

    def rank(row: dict[str, Any]) -> tuple[int, float, int]:
        owner = row["tournament__owner"]
        return busy.get(owner, 0), served.get(owner, 0.0), row["first"]

    return [row["tournament__owner"] for row in sorted(rows, key=rank)]


def next_match(owner: int | None) -> Match | None:
    """The owner's next match: oldest tournament first, in the schedule's order."""
    if owner is None:
        mine = waiting().filter(tournament__owner__isnull=True)
    else:
        mine = waiting().filter(tournament__owner=owner)
    return mine.order_by("tournament_id", "number", "id").first()


_local = threading.local()


def dispatch() -> list[int]:
    """Fill the free tournament slots fairly; the ids sent (after commit), in order.

    With tasks run in-process (no broker), sending plays the match at once, and its end
    calls ``dispatch`` again: that inner call only asks this loop to go round once more,
    so the stack does not grow with the number of matches.
    """
    if getattr(_local, "running", False):
        _local.again = True
        return []
    _local.running = True
    sent: list[int] = []
    try:
        while True:
            _local.again = False
            sent += fill_slots()
            if not _local.again:
                return sent
    finally:
        _local.running = False


@transaction.atomic
def fill_slots() -> list[int]:
    """One pass of ``dispatch`` in one transaction, under the dispatch lock."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [DISPATCH_LOCK])
    busy = in_flight_by_owner()
    served = last_served()
    free = settings.TOURNAMENT_SLOTS - sum(busy.values()) - ladder.in_flight()
    sent: list[Match] = []
    while free > 0:
        owners = waiting_owners(busy, served)
        match = next_match(owners[0]) if owners else None
        if match is None:
            break
        now = timezone.now()
        Match.objects.filter(pk=match.pk).update(sent_at=now)
        busy[owners[0]] = busy.get(owners[0], 0) + 1
        served[owners[0]] = now.timestamp()
        sent.append(match)
        free -= 1
    if free > 0:  # no tournament match waits: the ladder may have what is left
        sent += ladder.fill(free)
    send(sent, TOURNAMENTS)
    return [match.pk for match in sent]


def send(matches: Iterable[Match], queue: str) -> None:
    """Enqueue ``play_match`` for each match on ``queue`` after commit, each with its
    wall-clock budget as the task's time limits."""
    from tournaments.tasks import play_match  # the tasks module imports this one

    jobs = [(match.pk, budget(match)) for match in matches]
    if not jobs:
        return

    def send_all() -> None:
        for match_id, seconds in jobs:
            play_match.apply_async((match_id,), queue=queue, **clocks.time_limits(seconds))

    transaction.on_commit(send_all)


def budget(match: Match) -> int:
    return clocks.match_budget(
        match.game,
        match.seats.count(),
        match.games,
        match.duplicate,
        match.time_control,
        match.options,
    )


def dispatch_after_commit() -> None:
    """Run ``dispatch`` once the current transaction commits (a slot may have freed)."""
    transaction.on_commit(dispatch)
