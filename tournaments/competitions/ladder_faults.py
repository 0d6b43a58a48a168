"""A version that keeps faulting in rated play is taken off the ladder, and its owner told.

A check plays a few short games, so a fault that depends on the position (a bot that
crashes whenever the trick is a pair) can pass it and then lose match after match:
the ladder would keep seating it and its rating would keep falling. After each rated
match (``lease.finish_match``) every version that faulted in it is looked at: when its own
faults (a crash, an illegal or malformed answer, a timeout: the referee's fault kinds;
a host's fault voids the match, which is then never stored) reach LADDER_FAULT_LIMIT of
its last LADDER_FAULT_MATCHES rated matches, the ladder stops seating it
(``BotVersion.off_ladder_at``). A new version, or its owner from the bot page
(``put_back``), brings the bot back; faults before that no longer count.

Nothing here is shown to anyone: the bot page shows the owner and staff the count, the
last fault and its stderr tail (the log is the owner's), docs/ladder.md says the rule.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from tournaments import wake
from tournaments.errors import ServiceError
from tournaments.models import BotVersion, Match, Seat

logger = logging.getLogger(__name__)

#: How much of the end of a faulting seat's standard error the owner is shown.
TAIL_CHARS = 3000


@dataclass(frozen=True)
class FaultRecord:
    """A version's faults in its latest rated matches (since it was last put back).

    ``faulted`` of ``of`` matches had a fault of its own; ``last`` is the newest such
    fault as the referee stored it, in match ``match_id`` at seat ``seat``."""

    faulted: int
    of: int
    last: dict[str, Any] | None = None
    match_id: int | None = None
    seat: int | None = None


def own_faults(faults: Any, seat: int) -> list[dict[str, Any]]:
    """The faults of a stored match that are the bot's at ``seat`` (the referee's ``bot``
    is the seat's index: lease.finish_match seats bots in seat order)."""
    return [f for f in faults or [] if isinstance(f, dict) and f.get("bot") == seat]


def recent_faults(version: BotVersion, matches: int | None = None) -> FaultRecord:
    """Faults of ``version`` in its last ``matches`` (LADDER_FAULT_MATCHES) rated, finished
    matches; one index range of its seats (version, match)."""
    window = settings.LADDER_FAULT_MATCHES if matches is None else matches
    seats = Seat.objects.filter(version=version, match__status=Match.Status.DONE, match__rated=True)
    if version.back_on_ladder_at is not None:
        seats = seats.filter(match__finished_at__gt=version.back_on_ladder_at)
    newest = seats.order_by("-match_id").values_list("match_id", "index", "match__faults")
    rows = list(newest[:window])
    found_in = [(match_id, index, own_faults(found, index)) for match_id, index, found in rows]
    faulted = [row for row in found_in if row[2]]
    if not faulted:
        return FaultRecord(0, len(rows))
    match_id, index, found = faulted[0]
    return FaultRecord(len(faulted), len(rows), found[0], match_id, index)


def keeps_faulting(record: FaultRecord) -> bool:
    """Whether a record reaches the limit (LADDER_FAULT_LIMIT; 0 turns the rule off)."""
    limit = settings.LADDER_FAULT_LIMIT
    return limit > 0 and record.faulted >= limit


def after_rated_match(match: Match, seats: list[Seat]) -> list[int]:
    """Take off the ladder each version of ``match`` (stored, in this transaction) whose
    faults now reach the limit; the ids of those taken off. Only a version that faulted in
    this match can newly reach it, so a clean match costs no query."""
    taken = []
    for seat in seats:
        version = seat.version
        if version.off_ladder_at is not None or not own_faults(match.faults, seat.index):
            continue
        record = recent_faults(version)
        if keeps_faulting(record):
            version.off_ladder_at = timezone.now()
            BotVersion.objects.filter(pk=version.pk).update(off_ladder_at=version.off_ladder_at)
            taken.append(version.pk)
            logger.info(
                "version %s taken off the ladder: faulted in %s of its last %s rated matches",
                version.pk,
                record.faulted,
                record.of,
            )
    return taken


@transaction.atomic
def put_back(version: BotVersion) -> None:
    """The owner puts a version taken off the ladder back on it (the bot page's button;
    the caller checks who may): its earlier faults count no more."""
    locked = BotVersion.objects.select_for_update().get(pk=version.pk)
    if locked.off_ladder_at is None:
        raise ServiceError(f"v{locked.number} is not off the ladder: there is nothing to undo")
    now = timezone.now()
    BotVersion.objects.filter(pk=version.pk).update(off_ladder_at=None, back_on_ladder_at=now)
    version.off_ladder_at, version.back_on_ladder_at = None, now
    wake.dispatch_after_commit()  # an entrant again: the ladder may seat it now


def stderr_tail(match_id: int, seat: int) -> str:
    """The end of the seat's standard error, where a crash's traceback is (the owner's
    alone: the caller checks who may read it)."""
    log = Seat.objects.filter(match_id=match_id, index=seat).values_list("log", flat=True)
    text = next(iter(log), "")
    return text[-TAIL_CHARS:]
