"""Every state change of the service: small atomic functions, follow-up work after commit.

Nothing else writes bots, tournaments, matches or ratings. Each function runs in one
transaction; tasks are enqueued with ``transaction.on_commit``, so a worker never sees a
row that is not yet committed, and nothing is enqueued for a rolled-back change.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from judge.engine import GameError, Settings
from judge.games import GAMES, game_class
from judge.rng import derive_seed
from tournaments.bots import lookalikes
from tournaments.competitions import ladder
from tournaments.competitions.schedule import schedule
from tournaments.competitions.standings import refresh_table
from tournaments.models import (
    Bot,
    BotVersion,
    Ladder,
    Match,
    Rating,
    RatingHistory,
    RatingRecord,
    Seat,
    Tournament,
)
from tournaments.play import dispatch, replay_store
from tournaments.rating import global_rating, tournament_fit
from tournaments.rating.units import placings, stored_units

logger = logging.getLogger(__name__)


class ServiceError(ValueError):
    """A request the service cannot carry out as asked; the message says why."""


def checked_settings(game: str, players: int | None, variant: str | None, options: Any) -> Settings:
    """A game request checked by the game's own declared bounds (judge.options): the one
    validator of the service, called for the API and the web forms alike. Falsy players
    and variant mean the game's defaults; ServiceError says what is wrong."""
    try:
        return game_class(game).checked_settings(options, players=players or None, variant=variant)
    except GameError as error:
        raise ServiceError(str(error)) from None


# Bots.


def create_bot(owner: User | None, game: str, name: str, house_policy: str = "") -> Bot:
    game_class(game)  # refuses an unknown game, naming the ones there are
    twin = lookalikes.bot_like(game, name, owner.pk if owner else None)
    if twin is not None:  # a copy of a known bot's name must not pass for it (issue 31)
        whose = twin.owner.username if twin.owner else "the house"
        raise ServiceError(
            f"a {game} bot of {whose} is named {twin.name!r}, which {name!r} looks like; "
            "choose a name that looks different"
        )
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, game=game, name=name, house_policy=house_policy)
    except IntegrityError:
        raise ServiceError(f"you already have a {game} bot named {name!r}") from None


@transaction.atomic
def add_version(
    bot: Bot, code: bytes, content_hash: str, status: str = BotVersion.Status.PENDING
) -> BotVersion:
    """The version of ``bot`` with this code: the existing one if the hash is known."""
    Bot.objects.select_for_update().get(pk=bot.pk)
    existing = bot.versions.filter(content_hash=content_hash).first()
    if existing is not None:
        return existing
    number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    return BotVersion.objects.create(
        bot=bot, number=number, code=code, content_hash=content_hash, status=status
    )


def check_again_if_host_failed(version: BotVersion) -> bool:
    """A version whose check the server could not run (checks.not_checked) waits to be
    checked again when its code is uploaded again; True if so."""
    again = BotVersion.objects.filter(
        pk=version.pk, status=BotVersion.Status.REJECTED, check_report__host=True
    ).update(status=BotVersion.Status.PENDING, check_sent_at=None, check_report={})
    return again == 1


@transaction.atomic
def house_version(game: str, policy: str) -> BotVersion:
    """The (single, accepted) version of the house bot ``policy`` of ``game``."""
    bot, _ = Bot.objects.get_or_create(
        owner=None, game=game, name=f"house:{policy}", defaults={"house_policy": policy}
    )
    return add_version(bot, b"", f"house:{game}:{policy}", BotVersion.Status.ACCEPTED)


# Queued work that nobody wants any more.

#: The report of a check that was never run because its version was retired first.
WITHDRAWN = "not checked: the version was retired before its check ran"


@transaction.atomic
def withdraw_queued(versions: Iterable[BotVersion]) -> dict[str, int]:
    """Retiring takes back what these versions still wait for: their checks not yet
    begun (the versions are rejected, saying so) and every quick match seating one of them
    that no worker has begun (cancelled). A check or match being played ends as usual.
    How many of each were dropped."""
    ids = [version.pk for version in versions]
    report = {"passed": False, "verdict": "withdrawn", "reason": WITHDRAWN, "problems": []}
    checks = BotVersion.objects.filter(pk__in=ids, status=BotVersion.Status.PENDING).update(
        status=BotVersion.Status.REJECTED, check_sent_at=None, check_report=report
    )
    queued = dispatch.quick_matches().filter(status=Match.Status.QUEUED, seats__version__in=ids)
    matches = Match.objects.filter(pk__in=list(queued.values_list("id", flat=True))).update(
        status=Match.Status.CANCELLED,
        sent_at=None,
        failure="cancelled: a bot in it was retired before it began\n",
    )
    if checks or matches:
        dispatch.dispatch_after_commit()  # processes they were sent to may be free
    return {"checks": checks, "quick_matches": matches}


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


# Tournaments.


def create_tournament(
    owner: User | None,
    name: str,
    game: str,
    participants: Sequence[BotVersion],
    **fields: Any,
) -> Tournament:
    """A draft tournament; ``fields`` are Tournament fields (variant, rounds, seed, ...)."""
    settings = checked_settings(
        game, fields.pop("table_size", 0), fields.get("variant"), fields.get("options")
    )
    size = settings.players
    fields.update(variant=settings.variant, options=settings.options)
    foreign = [v for v in participants if v.bot.game != game]
    if foreign:
        raise ServiceError(f"{foreign[0]} plays {foreign[0].bot.game}, not {game}")
    if len({v.pk for v in participants}) < size:
        raise ServiceError(f"a table of {size} needs at least {size} different bot versions")
    with transaction.atomic():
        tournament = Tournament.objects.create(
            owner=owner, name=name, game=game, table_size=size, **fields
        )
        tournament.participants.set(participants)
    return tournament


@transaction.atomic
def start_tournament(tournament_id: int) -> Tournament:
    """Make every match of the schedule, queued in the database; the dispatcher sends
    them to the workers a few at a time, in the schedule's order (tournaments.play.dispatch)."""
    tournament = _locked_tournament(tournament_id, [Tournament.Status.DRAFT], ", not a draft")
    entrants = list(tournament.participants.order_by("id"))
    tables = schedule(len(entrants), tournament.table_size, tournament.rounds, tournament.seed)
    from tournaments.guard import quotas  # it imports this module (ServiceError)

    quotas.check_start(tournament.owner, len(tables))
    now = timezone.now()
    for number, table in enumerate(tables):
        match = Match.objects.create(
            tournament=tournament,
            number=number,
            game=tournament.game,
            variant=tournament.variant,
            options=tournament.options,
            games=tournament.games_per_pairing,
            duplicate=tournament.duplicate,
            rated=tournament.rated,
            seed=derive_seed(tournament.seed, "match", number),
            time_control=tournament.time_control,
            limits=tournament.limits,
            enqueued_at=now,
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version=entrants[p]) for i, p in enumerate(table)
        )
    tournament.status = Tournament.Status.RUNNING
    tournament.matches_total = len(tables)
    tournament.matches_done = 0
    tournament.started_at = now
    tournament.save()
    dispatch.dispatch_after_commit()
    return tournament


@transaction.atomic
def cancel_tournament(tournament_id: int) -> Tournament:
    """Cancel every match not over: queued ones at once; a running one's worker sees its
    match cancelled within MATCH_WATCH_SECONDS, stops it and removes its bots."""
    tournament = _locked_tournament(tournament_id, [Tournament.Status.RUNNING], ", not running")
    tournament.matches.filter(status__in=(Match.Status.QUEUED, Match.Status.RUNNING)).update(
        status=Match.Status.CANCELLED, lease_expires_at=None, sent_at=None
    )
    tournament.status = Tournament.Status.CANCELLED
    tournament.save(update_fields=["status"])
    dispatch.dispatch_after_commit()
    return tournament


@transaction.atomic
def resume_tournament(tournament_id: int) -> Tournament:
    """Queue again what was cancelled or left queued (after a cancel or a restart)."""
    tournament = _locked_tournament(
        tournament_id,
        [Tournament.Status.CANCELLED, Tournament.Status.RUNNING],
        "; nothing to resume",
    )
    waiting = tournament.matches.filter(status__in=(Match.Status.CANCELLED, Match.Status.QUEUED))
    waiting.update(status=Match.Status.QUEUED, enqueued_at=timezone.now(), sent_at=None)
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status"])
    dispatch.dispatch_after_commit()
    _close_if_complete(tournament.pk)
    return tournament


# The ladder (tournaments.competitions.ladder makes its matches inside the dispatcher).


@transaction.atomic
def pause_ladder(game: str, paused: bool = True) -> Ladder:
    """Pause (or resume) ``game``'s ladder. Pausing cancels its matches not yet started
    (a running one finishes); either way the freed or reopened slots are filled again."""
    if game not in GAMES:
        raise ServiceError(f"no game {game!r}; the games are {', '.join(sorted(GAMES))}")
    row = ladder.ladder_of(game)
    Ladder.objects.filter(pk=row.pk).update(paused=paused, updated_at=timezone.now())
    if paused:
        row.matches.filter(status=Match.Status.QUEUED).update(
            status=Match.Status.CANCELLED, sent_at=None, lease_expires_at=None
        )
    dispatch.dispatch_after_commit()
    row.refresh_from_db()
    return row


def _locked_tournament(tournament_id: int, allowed: list[str], otherwise: str) -> Tournament:
    """The tournament, locked until the transaction ends, if its status is ``allowed``;
    else a ServiceError saying its status, then ``otherwise``."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.status not in allowed:
        raise ServiceError(f"tournament {tournament_id} is {tournament.status}{otherwise}")
    return tournament


def enqueue_matches(matches: Iterable[Match]) -> None:
    """Send these queued matches on once the current transaction commits (again, after a
    broker lost them: manage.py resend_queued)."""
    _enqueue(matches)


def _enqueue(matches: Iterable[Match]) -> None:
    """Send queued matches on after commit: tournament matches and quick matches wait for
    the dispatcher (unsent, their turn comes), a ladder match goes back to its process."""
    matches = list(matches)
    dispatch.dispatch_after_commit()
    # A ladder match given back keeps its place: sent again at once, counted in flight.
    again = [m for m in matches if m.ladder_id is not None]
    Match.objects.filter(pk__in=[m.pk for m in again]).update(sent_at=timezone.now())
    dispatch.send(again, dispatch.TOURNAMENTS)


def _close_if_complete(tournament_id: int | None) -> None:
    if tournament_id is None:
        return
    Tournament.objects.filter(
        pk=tournament_id, status=Tournament.Status.RUNNING, matches_done__gte=F("matches_total")
    ).update(status=Tournament.Status.FINISHED, finished_at=timezone.now())


def _count_done(match: Match) -> None:
    if match.tournament_id is not None:
        Tournament.objects.filter(pk=match.tournament_id).update(matches_done=F("matches_done") + 1)
        _close_if_complete(match.tournament_id)
    dispatch.dispatch_after_commit()  # its process is free


# Matches: claim, lease, finish.


def _lease_end() -> dt.datetime:
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
    taken = Match.objects.filter(
        claimable, pk=match_id, attempt__lt=settings.MATCH_MAX_ATTEMPTS
    ).update(
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


@transaction.atomic
def finish_match(
    match_id: int,
    attempt: int,
    outcome: dict[str, Any],
    timings: dict[str, float] | None = None,
) -> bool:
    """Store a played match: result, faults, replay, logs and ratings, all or nothing.

    Only the holder of the current attempt may do this; anyone else gets False and
    changes nothing (their result is a duplicate of, or lost to, the current attempt).
    """
    match = _held_match(match_id, attempt)
    if match is None:
        return False
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
        _rate(match, [seat.version for seat in seats], outcome["places"])
    match.save()
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


def _rate(match: Match, versions: Sequence[BotVersion], places: Sequence[int]) -> None:
    """Move the global rating of the match's bots, holding their rating rows locked.

    One update per comparison unit of the match (``match.units``: its games, or its
    duplicate deals), in their stored order (tournaments.rating.global_rating), a bot whose
    version no earlier rated match had widened first (global_rating.new_version); one history
    row per bot for the match. ``rating_seq`` records the order: a match sharing a bot with an
    earlier one waits for its lock, so it reads a larger sequence number; equal numbers
    only go to matches with no bot in common, whose updates commute (recompute_ratings
    relies on this).
    """
    bots = [version.bot for version in versions]
    Rating.objects.bulk_create(
        [Rating(bot=bot, game=bot.game, elo=tournament_fit.START_ELO) for bot in bots],
        ignore_conflicts=True,
    )
    ids = sorted({bot.pk for bot in bots})
    locked = {r.bot_id: r for r in Rating.objects.select_for_update().filter(bot_id__in=ids)}
    match.rating_seq = (Match.objects.aggregate(seq=Max("rating_seq"))["seq"] or 0) + 1
    seats = tuple(bot.pk for bot in bots)
    placing = tournament_fit.Placing(seats, tuple(places))
    records = RatingRecord.of(ids)
    before = {pk: r.skill(records[pk]) for pk, r in locked.items()}
    after = global_rating.rate_units(
        before,
        rated_units(seats, places, match.units),
        _first_rated(versions),
        versions={version.bot_id: version.pk for version in versions},
    )
    store_records(before, after)
    count_record(locked, placing)
    for pk, rating in locked.items():
        rating.matches += 1
        new = after.get(pk, before[pk])
        RatingHistory.objects.create(
            bot_id=pk,
            match=match,
            game=match.game,
            seq=rating.matches,
            before=rating.elo,
            after=new.elo,
        )
        rating.set_skill(new)
        rating.save(update_fields=[*RECORD_FIELDS, *SKILL_FIELDS, "matches", "updated_at"])


def store_records(
    before: Mapping[int, global_rating.Skill], after: Mapping[int, global_rating.Skill]
) -> None:
    """Write the records a rating update changed (those of the match's opponents, or all
    of a bot's at its new version's first match), inserted or updated in one statement."""
    rows = [
        RatingRecord(bot_id=pk, opponent_id=other, **r._asdict())
        for pk, state in after.items()
        for other, r in state.records.items()
        if before[pk].records.get(other) != r
    ]
    RatingRecord.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=("bot", "opponent"),
        update_fields=global_rating.Record._fields,
    )


def _first_rated(versions: Sequence[BotVersion]) -> set[int]:
    """The bots (ids) of those versions that no rated match has rated before, whose flag
    (BotVersion.ever_rated) is then set: two primary-key statements at any history size.
    Read under the bots' rating locks, so a match of these versions rated before has
    committed its flag, as recompute_ratings sees it in rating order."""
    ids = {version.pk for version in versions}
    new = set(BotVersion.objects.filter(pk__in=ids, ever_rated=False).values_list("pk", flat=True))
    if new:
        BotVersion.objects.filter(pk__in=new).update(ever_rated=True)
    return {version.bot_id for version in versions if version.pk in new}


#: The rating row's state of the global rating (tournaments.rating.global_rating.Skill).
SKILL_FIELDS = ("elo", "deviation", "units", "variance", "information", "spread", "decisive")


def rated_units(
    seats: Sequence[int], places: Sequence[int], stored: str
) -> list[tournament_fit.Placing[int]]:
    """A rated match's comparison units by bot id: its stored units, or, for a match
    stored without any, its places over all its games as one unit."""
    return placings(seats, stored) or [tournament_fit.Placing(tuple(seats), tuple(places))]


#: The rating row's pairwise record, kept with each rated result (see count_record).
RECORD_FIELDS = ("wins", "draws", "losses")


def count_record(rows: dict[int, Rating], placing: tournament_fit.Placing[int]) -> None:
    """Add one rated result's pairwise wins, draws and losses to the bots' rating rows."""
    for a, b, score in tournament_fit.pairwise(placing.seats, placing.places):
        for bot_id, mine in ((a, score), (b, 1.0 - score)):
            row = rows[bot_id]
            if mine == 1.0:
                row.wins += 1
            elif mine == 0.0:
                row.losses += 1
            else:
                row.draws += 1


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
    if match.attempt >= settings.MATCH_MAX_ATTEMPTS:
        match.failure += gave_up
        _give_up(match)
        return False
    match.status = Match.Status.QUEUED
    match.enqueued_at = timezone.now() + dt.timedelta(seconds=later)
    match.sent_at = None
    match.save()
    _enqueue([match])
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
    expired = Match.objects.filter(status=Match.Status.RUNNING, lease_expires_at__lt=now)
    for match_id in list(expired.values_list("id", flat=True)):
        with transaction.atomic():
            match = (
                Match.objects.select_for_update()
                .filter(pk=match_id, status=Match.Status.RUNNING, lease_expires_at__lt=now)
                .first()
            )
            if match is None:
                continue
            counts["requeued" if _requeue_expired(match) else "failed"] += 1
    stale = now - dt.timedelta(seconds=settings.MATCH_REQUEUE_AFTER_SECONDS)
    if Match.objects.filter(started_at__gte=stale).exists():
        return counts  # workers are busy: old queued matches are waiting, not lost
    with transaction.atomic():
        lost = list(Match.objects.filter(status=Match.Status.QUEUED, sent_at__lt=stale))
        Match.objects.filter(pk__in=[m.pk for m in lost]).update(enqueued_at=now, sent_at=None)
        _enqueue(lost)
        counts["resent"] = len(lost)
    return counts


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
    reason = f"attempt {match.attempt}: lease expired (worker {match.worker or '?'} lost)\n"
    return _retry_or_fail(match, reason, f"gave up after {match.attempt} attempts\n")
