"""Tournaments and the ladder's pause: each function one transaction; the dispatcher is woken
after commit (tournaments.wake), so a worker never sees a match that is not yet committed."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from judge.games import GAMES
from judge.rng import derive_seed
from tournaments import wake
from tournaments.competitions import ladder, owners
from tournaments.competitions.schedule import (
    ScheduleError,
    Table,
    check_shape,
    planned_tables,
    schedule,
)
from tournaments.errors import ServiceError
from tournaments.game_settings import checked_settings
from tournaments.guard import quotas
from tournaments.models import BotVersion, Ladder, Match, Seat, Tournament

log = logging.getLogger(__name__)
#: Matches written in one transaction while a schedule is written (each with its seats):
#: a few hundred rows; on SQLite at load 15, 200 held the write lock 0.35 s (p50).
SCHEDULE_BATCH = 100


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


def start_tournament(tournament_id: int) -> Tournament:
    """Start the tournament and write its schedule here and now (management commands,
    tests): ``queue_start`` then ``build_schedule`` in this process. A request calls
    ``queue_start`` alone."""
    queue_start(tournament_id, send=False)
    build_schedule(tournament_id)
    return Tournament.objects.get(pk=tournament_id)


@transaction.atomic
def queue_start(tournament_id: int, send: bool = True) -> Tournament:
    """Check the start and mark the tournament scheduling, its schedule left to a task
    (``build_schedule``, sent after commit through tournaments.wake): a request does no
    schedule work and holds the database for a few short statements. The quotas are
    checked first, on the number of matches counted without building the schedule; a
    refusal changes nothing. Starts of one owner are taken in turn (their user row is
    locked), so two at once cannot both fit under the quota. ``send``: False when the
    caller builds the schedule itself (``start_tournament``)."""
    tournament = _locked_tournament(tournament_id, [Tournament.Status.DRAFT], ", not a draft")
    entrants = tournament.participants.count()
    try:
        check_shape(entrants, tournament.table_size, tournament.rounds)
    except ScheduleError as error:
        raise ServiceError(str(error)) from None
    planned = planned_tables(entrants, tournament.table_size, tournament.rounds)
    if tournament.owner_id is not None:
        User.objects.select_for_update().filter(pk=tournament.owner_id).first()
    quotas.check_start(tournament.owner, planned, starting=tournament.pk)
    tournament.status = Tournament.Status.SCHEDULING
    tournament.matches_total = planned
    tournament.matches_done = 0
    tournament.started_at = timezone.now()
    tournament.start_failure = ""
    tournament.save()
    if send:
        wake.schedule_after_commit(tournament.pk)
    return tournament


def build_schedule(tournament_id: int) -> str:
    """Work out a scheduling tournament's schedule, outside any transaction, then write
    its matches SCHEDULE_BATCH at a time, each batch one short transaction (no write waits
    long behind it, SQLite's lock included); the tournament runs once all are written.
    Matches written early may be played at once. Safe to run again or twice at once (the
    task after a lost worker, a command beside a worker): each batch locks the
    tournament and writes on from the matches already there. A quota the built schedule
    no longer fits, or an error, sends the tournament back to draft saying why."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or tournament.status != Tournament.Status.SCHEDULING:
        return "not scheduling"
    entrants = list(tournament.participants.select_related("bot").order_by("id"))
    try:
        tables = schedule(len(entrants), tournament.table_size, tournament.rounds, tournament.seed)
    except ScheduleError as error:
        return _back_to_draft(tournament_id, f"the schedule could not be made: {error}")
    refused = _fits(tournament_id, len(tables))
    if refused:
        return _back_to_draft(tournament_id, refused)
    while True:
        began = time.monotonic()
        written = _write_batch(tournament_id, tables, entrants)
        log.info(
            "tournament %s: schedule written to %s in %.3f s",
            tournament_id,
            written,
            time.monotonic() - began,
        )
        if written is None:
            return "stopped: no longer scheduling"
        if written >= len(tables):
            break
    _run(tournament_id)
    return f"{len(tables)} matches"


def _fits(tournament_id: int, tables: int) -> str:
    """'' if the built schedule's ``tables`` matches fit the owner's quota (checked again
    only when the count before building fell short of them), else why not; records the
    exact count."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tables > tournament.matches_total:
            try:
                quotas.check_start(tournament.owner, tables, starting=tournament_id)
            except quotas.QuotaExceeded as error:
                return str(error)
        tournament.matches_total = tables
        tournament.save(update_fields=["matches_total"])
    return ""


def _write_batch(
    tournament_id: int, tables: Sequence[Table], entrants: list[BotVersion]
) -> int | None:
    """Write the next batch of the schedule's matches; how many are written now, or None
    when the tournament is no longer scheduling (cancelled meanwhile)."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.status != Tournament.Status.SCHEDULING:
            return None
        first = tournament.matches.count()
        numbers = range(first, min(first + SCHEDULE_BATCH, len(tables)))
        now = timezone.now()
        seated = {number: [entrants[p] for p in tables[number]] for number in numbers}
        matches = Match.objects.bulk_create(
            _match(tournament, number, seated[number], now) for number in numbers
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version=version)
            for match, number in zip(matches, numbers, strict=True)
            for i, version in enumerate(seated[number])
        )
        if first == 0:  # the first matches may be played at once; later ones as others end
            wake.dispatch_after_commit()
        return numbers.stop


def _match(tournament: Tournament, number: int, seated: list[BotVersion], now: datetime) -> Match:
    return Match(
        tournament=tournament,
        number=number,
        game=tournament.game,
        variant=tournament.variant,
        options=tournament.options,
        games=tournament.games_per_pairing,
        duplicate=tournament.duplicate,
        # A table of one owner's bots is played unrated (owners.py).
        rated=tournament.rated and not owners.one_owner_twice(seated),
        seed=derive_seed(tournament.seed, "match", number),
        time_control=tournament.time_control,
        limits=tournament.limits,
        enqueued_at=now,
    )


@transaction.atomic
def _run(tournament_id: int) -> None:
    """Every match is written: the tournament runs (and is over at once if they were all
    played meanwhile)."""
    Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.SCHEDULING).update(
        status=Tournament.Status.RUNNING
    )
    wake.dispatch_after_commit()
    close_if_complete(tournament_id)


@transaction.atomic
def _back_to_draft(tournament_id: int, why: str) -> str:
    """The start did not go through: a draft again, with no match, saying why."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.status == Tournament.Status.SCHEDULING:
        tournament.matches.all().delete()
        tournament.status = Tournament.Status.DRAFT
        tournament.matches_total = 0
        tournament.started_at = None
        tournament.start_failure = why
        tournament.save()
    return f"back to draft: {why}"


@transaction.atomic
def cancel_tournament(tournament_id: int) -> Tournament:
    """Cancel every match not over: queued ones at once; a running one's worker sees its
    match cancelled within MATCH_WATCH_SECONDS, stops it and removes its bots."""
    tournament = _locked_tournament(
        tournament_id, [Tournament.Status.SCHEDULING, Tournament.Status.RUNNING], ", not running"
    )
    tournament.matches.filter(status__in=(Match.Status.QUEUED, Match.Status.RUNNING)).update(
        status=Match.Status.CANCELLED, lease_expires_at=None, sent_at=None
    )
    tournament.status = Tournament.Status.CANCELLED
    tournament.save(update_fields=["status"])
    wake.dispatch_after_commit()
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
    wake.dispatch_after_commit()
    close_if_complete(tournament.pk)
    return tournament


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
    wake.dispatch_after_commit()
    row.refresh_from_db()
    return row


def _locked_tournament(tournament_id: int, allowed: list[str], otherwise: str) -> Tournament:
    """The tournament, locked until the transaction ends, if its status is ``allowed``;
    else a ServiceError saying its status, then ``otherwise``."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.status not in allowed:
        raise ServiceError(f"tournament {tournament_id} is {tournament.status}{otherwise}")
    return tournament


def close_if_complete(tournament_id: int | None) -> None:
    """Finish a running tournament once every match is over (played, failed or cancelled
    for good); the lease calls it as each match ends, resume when nothing was left."""
    if tournament_id is None:
        return
    Tournament.objects.filter(
        pk=tournament_id, status=Tournament.Status.RUNNING, matches_done__gte=F("matches_total")
    ).update(status=Tournament.Status.FINISHED, finished_at=timezone.now())
