"""The lease a worker holds on a match: claim, renew, finish, release, fail, stop, reap.

A worker claims a match with one conditional UPDATE (only one of several racing workers
sees its row count be 1), keeps the lease alive while it plays, and only the holder of the
current attempt may store the result. A lease that runs out (a lost worker) is reaped: the
match is queued again, or failed after MATCH_MAX_ATTEMPTS. Each function is one transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from tournaments.competitions import competition_actions, duels, ladder_faults
from tournaments.competitions.standings import refresh_table
from tournaments.models import Match, MatchPart, Seat, Tournament
from tournaments.play import dispatch, queued_work, replay_store
from tournaments.rating.model.units import stored_units
from tournaments.rating.stored import match_rating

logger = logging.getLogger(__name__)


def _count_done(match: Match) -> None:
    """Count an ended match in its tournament (which may then be finished) or its duel and
    wake the dispatcher: its process is free."""
    if match.tournament_id is not None:
        Tournament.objects.filter(pk=match.tournament_id).update(matches_done=F("matches_done") + 1)
        competition_actions.close_if_complete(match.tournament_id)
    if match.duel_id is not None:
        duels.match_ended(match)  # its round may be complete: folded in, the next queued
    dispatch.dispatch_after_commit()  # its process is free


def _lease_end() -> dt.datetime:
    """When a lease taken or renewed now runs out."""
    return timezone.now() + dt.timedelta(seconds=settings.MATCH_LEASE_SECONDS)


def claim_match(match_id: int, worker: str) -> int | None:
    """Take the match for ``worker``: the new attempt number, or None if someone else has it.

    One conditional UPDATE: only a queued match, or a running one whose lease ran out, can
    be claimed, and only while attempts remain; exactly one of several racing workers
    sees its row count be 1.
    """
    now = timezone.now()
    claimable = Q(status=Match.Status.QUEUED) | Q(
        status=Match.Status.RUNNING, lease_expires_at__lt=now
    )
    # Each part of a match played in parts has MATCH_MAX_ATTEMPTS of its own.
    attempts_left = Q(attempt__lt=F("part_attempt") + settings.MATCH_MAX_ATTEMPTS)
    taken = Match.objects.filter(claimable, attempts_left, pk=match_id).update(
        status=Match.Status.RUNNING,
        attempt=F("attempt") + 1,
        lease_expires_at=_lease_end(),
        worker=worker,
        started_at=now,
    )
    if taken != 1:
        return None
    attempt: int = Match.objects.values_list("attempt", flat=True).get(pk=match_id)
    return attempt


def renew_lease(match_id: int, attempt: int) -> bool:
    """Extend the lease of the current attempt; False once another attempt has the match."""
    return (
        Match.objects.filter(pk=match_id, attempt=attempt, status=Match.Status.RUNNING).update(
            lease_expires_at=_lease_end()
        )
        == 1
    )


def holds_match(match_id: int, attempt: int) -> bool:
    """Whether ``attempt`` still holds the running match (False once it was cancelled)."""
    return Match.objects.filter(pk=match_id, attempt=attempt, status=Match.Status.RUNNING).exists()


@dataclass(frozen=True)
class PartPlayed:
    """One part of a match played in parts (Match.parts), as its attempt ended it: which
    part and blocks, where it was played, the games and faults it added (the outcome's
    beyond those it carried in), each bot's state at its end, and its timings."""

    index: int
    blocks: range
    host: str
    worker: str
    records: list[dict[str, Any]]
    faults: list[dict[str, Any]]
    carry: list[dict[str, Any]]
    timings: dict[str, float] = field(default_factory=dict)

    def row(self, match: Match, keep_records: bool) -> MatchPart:
        summaries = [
            {key: played[key] for key in ("index", "deal", "seating", "result")}
            for played in self.records
        ]
        return MatchPart(
            match=match,
            index=self.index,
            first_block=self.blocks.start,
            end_block=self.blocks.stop,
            host=self.host,
            worker=self.worker,
            attempt=match.attempt,
            games=summaries,
            records=self.records if keep_records else [],
            faults=self.faults,
            carry=self.carry if keep_records else [],
            timings=self.timings,
        )


@transaction.atomic
def finish_part(match_id: int, attempt: int, part: PartPlayed) -> bool:
    """Store a part of a match played in parts that is not its last, and send the next
    part on at once, to another host's queue (tournaments.play.dispatch.pick_host): the
    match keeps its process in flight meanwhile. Only the holder of the current attempt,
    playing the match's current part, may do this (else False, nothing changed): a part
    is stored once, and nothing of the match is rated or counted until its last part."""
    match = _held_match(match_id, attempt)
    if match is None or match.part != part.index or part.index + 1 >= match.parts:
        return False
    part.row(match, keep_records=True).save(force_insert=True)
    now = timezone.now()
    match.part += 1
    match.part_attempt = match.attempt
    match.status = Match.Status.QUEUED
    match.lease_expires_at = None
    match.enqueued_at = match.sent_at = now
    match.save()
    queue = dispatch.INTERACTIVE if _quick(match) else dispatch.TOURNAMENTS
    dispatch.send([match], queue)
    return True


def _quick(match: Match) -> bool:
    return not (match.tournament_id or match.ladder_id or match.duel_id or match.table_slot)


@transaction.atomic
def finish_match(
    match_id: int,
    attempt: int,
    outcome: dict[str, Any],
    timings: dict[str, float] | None = None,
    last_part: PartPlayed | None = None,
) -> bool:
    """Store a played match: result, faults, replay, logs and ratings, all or nothing.

    Only the holder of the current attempt may do this; anyone else gets False and
    changes nothing (their result is a duplicate of, or lost to, the current attempt).
    The last part of a match played in parts (``last_part``) stores the whole match: its
    outcome holds every part's games; its part's row is kept beside the others, whose full
    game records (carried from part to part) are no longer needed.
    """
    match = _held_match(match_id, attempt)
    if match is None:
        return False
    if last_part is not None:
        if match.part != last_part.index:
            return False
        MatchPart.objects.filter(match=match).update(records=[], carry=[])
        last_part.row(match, keep_records=False).save(force_insert=True)
    match.status = Match.Status.DONE
    match.result = {
        "scores": outcome["scores"],
        "places": outcome["places"],
        "games": [
            {"deal": g["deal"], "seating": g["seating"], "result": g["result"]}
            for g in outcome.get("games", [])
        ],
    }
    match.units = stored_units(match)
    match.faults = outcome.get("faults", [])
    match.finished_at = timezone.now()
    match.lease_expires_at = None
    match.timings = dict(timings or {})
    seats = list(match.seats.select_related("version__bot").order_by("index"))
    marks = outcome.get("log_games") or [[] for _ in seats]
    for seat, log, games in zip(seats, outcome.get("logs", []), marks, strict=False):
        seat.log, seat.log_games = log, games
    Seat.objects.bulk_update(seats, ["log", "log_games"])
    if match.rated:
        match_rating.rate_match(match, [seat.version for seat in seats], outcome["places"])
    match.save()
    if match.rated:
        ladder_faults.after_rated_match(match, seats)  # a version that keeps faulting: off
    _count_done(match)
    if outcome.get("record") is not None:
        _keep_replay(match.pk, outcome["record"])
    return True


def refresh_table_of(match_id: int) -> None:
    """Refit the cached table of the match's tournament, in this process, once its result
    is stored and committed (the worker calls it last, so no page request ever fits; a
    failure only leaves the table one result behind)."""
    tournament_id = Match.objects.filter(pk=match_id).values_list("tournament_id", flat=True)
    try:
        for found in tournament_id:
            if found is not None:
                refresh_table(found)
    except Exception:  # the result is stored; the next one or a reader refreshes the table
        logger.exception("refreshing the table of match %s's tournament failed", match_id)


def _keep_replay(match_id: int, record: dict[str, Any]) -> None:
    """Write the record's file and its row; the file goes again if the row is not stored."""
    replay = replay_store.stored_replay(match_id, record)
    try:
        with transaction.atomic():
            replay.save(force_insert=True)
    except BaseException:
        replay_store.delete_files(replay.name, replay.games, replay.players)
        raise


@transaction.atomic
def release_match(match_id: int, attempt: int, reason: str, later: float = 0.0) -> bool:
    """Give the match back after an infrastructure fault: queued again (sent no sooner
    than ``later`` seconds from now), or failed for good.

    Returns True when it was queued again (and enqueued after commit).
    """
    match = _held_match(match_id, attempt)
    if match is None:
        return False
    return _retry_or_fail(match, f"attempt {attempt}: {reason}\n", later=later)


@transaction.atomic
def fail_match(match_id: int, attempt: int, reason: str) -> bool:
    """Give up on a match that can never be played as stored (a bad request)."""
    match = _held_match(match_id, attempt)
    if match is None:
        return False
    match.failure += f"attempt {attempt}: {reason}\n"
    match.lease_expires_at = None
    _give_up(match)
    return True


def _held_match(match_id: int, attempt: int) -> Match | None:
    """The match, locked until the transaction ends, while ``attempt`` is its current one
    and running; else None (the caller's result is a duplicate or lost)."""
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None or match.attempt != attempt or match.status != Match.Status.RUNNING:
        return None
    return match


def _retry_or_fail(match: Match, reason: str, gave_up: str = "", later: float = 0.0) -> bool:
    """Record ``reason`` and queue the match again (sent after commit, or once ``later``
    seconds have passed: ``enqueued_at`` is then in the future); after MATCH_MAX_ATTEMPTS
    fail it for good instead, adding ``gave_up``. True when queued."""
    match.failure += reason
    match.lease_expires_at = None
    if match.attempt - match.part_attempt >= settings.MATCH_MAX_ATTEMPTS:
        match.failure += gave_up
        _give_up(match)
        return False
    match.status = Match.Status.QUEUED
    match.enqueued_at = timezone.now() + dt.timedelta(seconds=later)
    match.sent_at = None
    match.save()
    queued_work.enqueue_matches([match])
    return True


def _give_up(match: Match) -> None:
    """Fail the match for good and count it done."""
    match.status = Match.Status.FAILED
    match.finished_at = timezone.now()
    match.save()
    _count_done(match)


def reap_matches() -> dict[str, int]:
    """Return expired leases to the queue, give up after MATCH_MAX_ATTEMPTS, resend lost
    messages (queued matches not claimed for MATCH_REQUEUE_AFTER_SECONDS while no match at
    all was claimed: the broker lost them, say in a restart). Returns how many matches were
    requeued, failed and resent."""
    now = timezone.now()
    counts = {"requeued": 0, "failed": 0, "resent": 0}
    # A lease run out, or held by a worker whose heartbeats stopped: lost either way.
    lost_lease = Q(lease_expires_at__lt=now) | dispatch.on_dead_workers()
    expired = Match.objects.filter(lost_lease, status=Match.Status.RUNNING)
    for match_id in list(expired.values_list("id", flat=True)):
        with transaction.atomic():
            match = (
                Match.objects.select_for_update()
                .filter(lost_lease, pk=match_id, status=Match.Status.RUNNING)
                .first()
            )
            if match is None:
                continue
            counts["requeued" if _requeue_expired(match) else "failed"] += 1
    counts["rerouted"] = _reroute_parts(now)
    stale = now - dt.timedelta(seconds=settings.MATCH_REQUEUE_AFTER_SECONDS)
    if Match.objects.filter(started_at__gte=stale).exists():
        return counts  # workers are busy: old queued matches are waiting, not lost
    with transaction.atomic():
        lost = list(Match.objects.filter(status=Match.Status.QUEUED, sent_at__lt=stale))
        Match.objects.filter(pk__in=[m.pk for m in lost]).update(enqueued_at=now, sent_at=None)
        queued_work.enqueue_matches(lost)
        counts["resent"] = len(lost)
    return counts


@transaction.atomic
def _reroute_parts(now: dt.datetime) -> int:
    """Send on again the parts sent to a host that no longer announces itself (its queue
    may never be read again); a copy its workers still take is not claimed twice."""
    gone = (
        Match.objects.select_for_update()
        .filter(status=Match.Status.QUEUED, sent_at__isnull=False)
        .exclude(sent_to="")
        .exclude(sent_to__in=list(dispatch.live_hosts()))
    )
    lost = list(gone)
    Match.objects.filter(pk__in=[m.pk for m in lost]).update(
        enqueued_at=now, sent_at=None, sent_to=""
    )
    queued_work.enqueue_matches(lost)
    return len(lost)


@transaction.atomic
def stop_match(match_id: int, attempt: int, reason: str) -> bool:
    """Record that a worker stopped the match (cancelled while it was played); True if
    it was this attempt's (then it is cancelled, with the reason; resume queues it again)."""
    match = Match.objects.select_for_update().filter(pk=match_id, attempt=attempt).first()
    stoppable = (Match.Status.RUNNING, Match.Status.CANCELLED)
    if match is None or match.status not in stoppable:
        dispatch.dispatch_after_commit()
        return False
    match.status = Match.Status.CANCELLED
    match.failure += f"attempt {attempt}: {reason}\n"
    match.lease_expires_at = None
    match.sent_at = None
    match.save()
    dispatch.dispatch_after_commit()
    return True


def _requeue_expired(match: Match) -> bool:
    worker = match.worker or "?"
    if match.lease_expires_at is not None and match.lease_expires_at > timezone.now():
        reason = f"attempt {match.attempt}: heartbeats stopped (worker {worker} lost)\n"
    else:
        reason = f"attempt {match.attempt}: lease expired (worker {worker} lost)\n"
    return _retry_or_fail(match, reason, f"gave up after {match.attempt} attempts\n")


#: The lines of a match's failure history that anyone may read (the others name workers).
PUBLIC_NOTES = ("voided", "cancelled", "this server cannot play", "ran past")


def public_notes(failure: str) -> list[str]:
    """What the match's page and the API say about its attempts: voided for a host fault
    (and played again: every seat late at start-up, a house bot's fault, a bot's wall
    clock run out while the worker stalled), cancelled, not playable on this server, past
    its budget."""
    notes = []
    for line in failure.splitlines():
        text = line.split(": ", 1)[1] if line.startswith("attempt ") else line
        if text.startswith(PUBLIC_NOTES):
            notes.append(text)
    return notes
