"""Queued work sent on or taken back: matches enqueued again, a quick match cancelled by its
owner, the checks and quick matches of retired versions withdrawn. The dispatcher
(tournaments.play.dispatch) decides what is sent when; these only change what waits."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.utils import timezone

from tournaments.competitions import duels
from tournaments.errors import ServiceError
from tournaments.models import BotVersion, Match
from tournaments.play import dispatch

#: The report of a check that was never run because its version was retired first.
WITHDRAWN = "not checked: the version was retired before its check ran"


@transaction.atomic
def withdraw_queued(versions: Iterable[BotVersion]) -> dict[str, int]:
    """Retiring takes back everything these versions wait for or play outside tournaments:
    their checks not yet begun (the versions are rejected, saying so), every quick match
    seating one of them (cancelled: a running one's worker stops it within
    MATCH_WATCH_SECONDS), and the running duels seating one of them (cancelled, saying so).
    A check being played is stopped by its own worker, which watches for the retirement
    (tournaments.play.version_checks.RetireWatch). How many of each were dropped."""
    ids = [version.pk for version in versions]
    report = {"passed": False, "verdict": "withdrawn", "reason": WITHDRAWN, "problems": []}
    checks = BotVersion.objects.filter(pk__in=ids, status=BotVersion.Status.PENDING).update(
        status=BotVersion.Status.REJECTED, check_sent_at=None, check_report=report
    )
    matches = _cancel_quick_matches(ids)
    if checks or matches:
        dispatch.dispatch_after_commit()  # processes they were sent to may be free
    return {"checks": checks, "quick_matches": matches, "duels": duels.end_for_retired(ids)}


def _cancel_quick_matches(version_ids: list[int]) -> int:
    """Cancel the quick matches seating these versions, queued or being played, and the
    people's tables seating them that no worker has begun."""
    quick = dispatch.quick_matches().filter(
        status__in=(Match.Status.QUEUED, Match.Status.RUNNING)
    ) | dispatch.table_matches().filter(status=Match.Status.QUEUED)  # a person's table too
    seating = quick.filter(seats__version__in=version_ids)
    return Match.objects.filter(pk__in=list(seating.values_list("id", flat=True))).update(
        status=Match.Status.CANCELLED,
        sent_at=None,
        lease_expires_at=None,
        failure=Concat(F("failure"), Value("cancelled: a bot in it was retired\n")),
    )


@transaction.atomic
def cancel_quick_match(match_id: int, user: User) -> Match:
    """Cancel a quick match ``user`` asked for, while no worker has begun it."""
    match = dispatch.quick_matches().select_for_update().filter(pk=match_id).first()
    if match is None or (match.requested_by_id != user.pk and not user.is_staff):
        raise ServiceError(f"match {match_id} is not a quick match of yours")
    if match.status != Match.Status.QUEUED:
        raise ServiceError(f"match {match_id} is {match.status}: only a queued one is cancelled")
    match.status = Match.Status.CANCELLED
    match.sent_at = None
    match.failure += "cancelled by its owner before it began\n"
    match.save(update_fields=["status", "sent_at", "failure"])
    dispatch.dispatch_after_commit()
    return match


def enqueue_matches(matches: Iterable[Match]) -> None:
    """Send these queued matches on once the current transaction commits (again, after a
    broker lost them: manage.py resend_queued): tournament matches and quick matches wait
    for the dispatcher (unsent, their turn comes), a ladder match goes back to its process."""
    matches = list(matches)
    dispatch.dispatch_after_commit()
    # A ladder match given back keeps its place: sent again at once, counted in flight.
    again = [m for m in matches if m.ladder_id is not None]
    Match.objects.filter(pk__in=[m.pk for m in again]).update(sent_at=timezone.now())
    dispatch.send(again, dispatch.TOURNAMENTS)
