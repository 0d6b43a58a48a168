"""Tournaments and the ladder's pause: each function one transaction; the dispatcher is woken
after commit (tournaments.wake), so a worker never sees a match that is not yet committed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from judge.games import GAMES
from judge.rng import derive_seed
from tournaments import wake
from tournaments.competitions import ladder, owners
from tournaments.competitions.schedule import schedule
from tournaments.errors import ServiceError
from tournaments.game_settings import checked_settings
from tournaments.guard import quotas
from tournaments.models import BotVersion, Ladder, Match, Seat, Tournament


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
    entrants = list(tournament.participants.select_related("bot").order_by("id"))
    tables = schedule(len(entrants), tournament.table_size, tournament.rounds, tournament.seed)
    quotas.check_start(tournament.owner, len(tables))
    now = timezone.now()
    for number, table in enumerate(tables):
        seated = [entrants[p] for p in table]
        match = Match.objects.create(
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
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version=v) for i, v in enumerate(seated)
        )
    tournament.status = Tournament.Status.RUNNING
    tournament.matches_total = len(tables)
    tournament.matches_done = 0
    tournament.started_at = now
    tournament.save()
    wake.dispatch_after_commit()
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
