"""Duels (issue 35): is the owner's new version B stronger than A? Each round is two unrated
matches on the same deals with B and A swapped (judge.duel.pairs); when both are over, the
round is folded into the duel's sequential test (judge.duel.state: the test looks after
every pair, in the order played) and the next round is queued, until the test decides or
the game cap is reached.

A duel keeps DUEL_ROUNDS_IN_FLIGHT rounds (2 by default) queued or playing at once (issue
45): with one, a round's faster match left its process to other work (or idle) until the
slower one ended and the next round was queued. Rounds are folded in in their order,
whichever ends first; when the test decides, the rounds still in flight are cancelled
(their games count nowhere, like the deciding round's overshoot).

The rounds' matches are batch work: the dispatcher sends them with the tournaments' matches,
owners in turn (tournaments.play.dispatch). Each function here is one transaction (or runs
inside the lease's), and the dispatcher is woken only after it commits.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from judge.bots import policies
from judge.duel.pairs import seatings
from judge.duel.sprt import Decision, Sprt
from judge.duel.state import DuelState
from judge.rng import derive_seed
from tournaments import wake
from tournaments.bots import bot_actions
from tournaments.errors import ServiceError
from tournaments.game_settings import checked_settings
from tournaments.models import BotVersion, Duel, Match, Seat

#: Pairs (deals) in one round: each of its two matches plays that many games.
MAX_PAIRS_PER_ROUND = 50
#: The most games one duel may play (the test's cap), and the fewest.
MAX_GAMES = 4000
MIN_GAMES = 20
#: Duels one owner may have running at once (each keeps DUEL_ROUNDS_IN_FLIGHT rounds, two
#: matches each, in the queue).
MAX_RUNNING_PER_OWNER = 3
#: The house bot that fills a larger table's other seats when no panel is chosen.
DEFAULT_PANEL = "greedy"


@dataclass(frozen=True)
class DuelRequest:
    """What the owner asks for; ``create_duel`` checks every field."""

    b: BotVersion
    a: BotVersion
    panel: BotVersion | None = None
    table_size: int = 0
    variant: str = ""
    options: dict[str, Any] | None = None
    #: None: the service's DUEL_PAIRS_PER_ROUND.
    pairs_per_round: int | None = None
    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 4000
    seed: int | None = None


def create_duel(owner: User | None, request: DuelRequest) -> Duel:
    """A running duel of ``request``, its first round queued after commit; ServiceError
    says what was wrong with the request. No owner: a house duel (B a house bot)."""
    game = request.b.bot.game
    chosen = checked_settings(game, request.table_size, request.variant, request.options)
    pairs_per_round = request.pairs_per_round
    if pairs_per_round is None:
        pairs_per_round = settings.DUEL_PAIRS_PER_ROUND
    test = _checked_test(request, pairs_per_round)
    _check_versions(owner, game, request)
    with transaction.atomic():
        running = Duel.objects.select_for_update().filter(owner=owner, status=Duel.Status.RUNNING)
        if owner is not None and len(running) >= MAX_RUNNING_PER_OWNER:
            raise ServiceError(
                f"you already have {MAX_RUNNING_PER_OWNER} duels running, the most allowed at "
                "once; wait for one to be decided, or cancel one"
            )
        panel = request.panel
        if panel is None and chosen.players > 2:
            panel = bot_actions.house_version(game, _default_panel(game))
        duel = Duel.objects.create(
            owner=owner,
            game=game,
            variant=chosen.variant,
            options=chosen.options,
            table_size=chosen.players,
            a=request.a,
            b=request.b,
            panel=panel,
            pairs_per_round=pairs_per_round,
            seed=secrets.randbits(48) if request.seed is None else request.seed,
            state=DuelState(test).to_json(),
        )
        _top_up(duel, DuelState(test), [])
    return duel


def _checked_test(request: DuelRequest, pairs_per_round: int) -> Sprt:
    """The request's sequential test, its settings (and its rounds' size) bounded."""
    if not 1 <= pairs_per_round <= MAX_PAIRS_PER_ROUND:
        raise ServiceError(f"a round plays 1 to {MAX_PAIRS_PER_ROUND} pairs, not {pairs_per_round}")
    if not MIN_GAMES <= request.max_games <= MAX_GAMES:
        raise ServiceError(
            f"the game cap must be from {MIN_GAMES} to {MAX_GAMES} games, not {request.max_games}"
        )
    try:
        return Sprt(request.elo0, request.elo1, request.alpha, request.beta, request.max_games)
    except ValueError as error:
        raise ServiceError(str(error)) from None


def _check_versions(owner: User | None, game: str, request: DuelRequest) -> None:
    """B must be the owner's own (a house duel's: a house bot); A and the panel the
    owner's, a house bot's, or any accepted version; all of ``game``, accepted, not
    retired, and A is not B."""
    if request.b.bot.owner_id != (owner.pk if owner is not None else None):
        raise ServiceError(f"B ({request.b}) must be a version of one of your own bots")
    if request.a.pk == request.b.pk:
        raise ServiceError("A and B are the same version: choose a different baseline A")
    for role, version in (("B", request.b), ("A", request.a), ("the panel", request.panel)):
        if version is None:
            continue
        if version.bot.game != game:
            raise ServiceError(f"{role} ({version}) plays {version.bot.game}, not {game}")
        if version.status != BotVersion.Status.ACCEPTED:
            raise ServiceError(f"{role} ({version}) is {version.status}: it must be accepted")
        if version.retired or version.bot.retired:
            raise ServiceError(f"{role} ({version}) is retired; it plays no new match")


def _default_panel(game: str) -> str:
    found = policies(game)
    return DEFAULT_PANEL if DEFAULT_PANEL in found else "random"


def _top_up(duel: Duel, state: DuelState, pending: Sequence[Match]) -> None:
    """Queue rounds until DUEL_ROUNDS_IN_FLIGHT are queued or playing (``pending``: the
    matches of the rounds not folded in yet), none beyond the game cap."""
    rounds = {m.duel_round for m in pending}
    committed = sum(m.games for m in pending if m.duel_seating == 0)
    number = max(rounds, default=len(state.history) - 1) + 1
    while len(rounds) < settings.DUEL_ROUNDS_IN_FLIGHT:
        pairs = state.pairs_next(duel.pairs_per_round, committed)
        if not pairs:
            break
        _queue_round(duel, number, pairs)
        rounds.add(number)
        committed += pairs
        number += 1


def _queue_round(duel: Duel, number: int, pairs: int) -> None:
    """Make round ``number``'s two matches (same seed: the same deals), queued in the
    database for the dispatcher, which is woken after commit."""
    first, second = seatings(duel.table_size, duel.b, duel.a, duel.panel)
    now = timezone.now()
    for seating, seated in enumerate((first, second)):
        match = Match.objects.create(
            duel=duel,
            duel_round=number,
            duel_seating=seating,
            number=2 * number + seating,
            game=duel.game,
            variant=duel.variant,
            options=duel.options,
            games=pairs,
            duplicate=False,
            rated=False,
            seed=derive_seed(duel.seed, "duel-round", number),
            enqueued_at=now,
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version=version) for i, version in enumerate(seated)
        )
    wake.dispatch_after_commit()


def match_ended(match: Match) -> None:
    """A duel's match is over (the lease calls this in the transaction that stores it):
    fold in every round whose matches are both done, in the rounds' order, then queue
    rounds up to DUEL_ROUNDS_IN_FLIGHT, or end the duel (decided, capped, or failed)."""
    duel = Duel.objects.select_for_update().filter(pk=match.duel_id or 0).first()
    if duel is None or duel.status != Duel.Status.RUNNING:
        return
    state = DuelState.from_json(duel.state)
    if match.duel_round < len(state.history):
        return  # a round already folded in (a duplicate delivery)
    pending = list(
        Match.objects.filter(duel=duel, duel_round__gte=len(state.history))
        .exclude(status=Match.Status.CANCELLED)
        .order_by("duel_round", "duel_seating")
    )
    while True:
        both = [m for m in pending if m.duel_round == len(state.history)]
        failed = next((m for m in both if m.status == Match.Status.FAILED), None)
        if failed is not None:
            # The round cannot be scored: the matches still to play are not worth it.
            _cancel_in_flight(duel)
            why = f"round {failed.duel_round + 1}'s match {failed.pk} failed for good: "
            duel.state = state.to_json()
            _end(duel, Duel.Status.FAILED, (why + failed.failure).strip())
            return
        if len(both) != 2 or any(m.status != Match.Status.DONE for m in both):
            break
        state = state.record_round(_game_scores(both[0]), _game_scores(both[1]))
        pending = [m for m in pending if m not in both]
        if state.decision is not Decision.RUNNING:
            duel.state = state.to_json()
            _cancel_in_flight(duel)
            capped = state.decision is Decision.CAP
            _end(duel, Duel.Status.CAPPED if capped else Duel.Status.DECIDED)
            return
    duel.state = state.to_json()
    duel.save(update_fields=["state"])
    _top_up(duel, state, pending)


def _cancel_in_flight(duel: Duel) -> None:
    """The duel's rounds still queued or playing are cancelled (a playing match's worker
    stops it within MATCH_WATCH_SECONDS), and the dispatcher fills their processes."""
    stopped = duel.matches.filter(status__in=(Match.Status.QUEUED, Match.Status.RUNNING)).update(
        status=Match.Status.CANCELLED, lease_expires_at=None, sent_at=None
    )
    if stopped:
        wake.dispatch_after_commit()


def _game_scores(match: Match) -> list[Sequence[float]]:
    """Each game's scores, seat by seat (the seating is the match's: no rotation)."""
    return [list(game["result"]["scores"]) for game in (match.result or {}).get("games", [])]


def _end(duel: Duel, status: str, why: str = "") -> None:
    duel.status = status
    duel.failure = why
    duel.finished_at = timezone.now()
    duel.save(update_fields=["state", "status", "failure", "finished_at"])


@transaction.atomic
def end_for_retired(version_ids: Sequence[int]) -> int:
    """Retiring versions ends the running duels seating them (as A, B or the panel): a
    retired version enters no new match, and a duel without its next rounds cannot be
    decided. They are cancelled, saying why; the rounds played stay. How many."""
    seating = Q(a__in=version_ids) | Q(b__in=version_ids) | Q(panel__in=version_ids)
    running = list(Duel.objects.select_for_update().filter(seating, status=Duel.Status.RUNNING))
    for duel in running:
        duel.matches.filter(status__in=(Match.Status.QUEUED, Match.Status.RUNNING)).update(
            status=Match.Status.CANCELLED, lease_expires_at=None, sent_at=None
        )
        _end(duel, Duel.Status.CANCELLED, "cancelled: a version in it was retired")
    if running:
        wake.dispatch_after_commit()
    return len(running)


@transaction.atomic
def cancel_duel(duel_id: int, user: User) -> Duel:
    """Cancel a running duel of ``user``'s: its queued matches at once, a running one's
    worker stops it within MATCH_WATCH_SECONDS. The rounds played stay recorded."""
    duel = Duel.objects.select_for_update().filter(pk=duel_id).first()
    if duel is None or (duel.owner_id != user.pk and not user.is_staff):
        raise ServiceError(f"duel {duel_id} is not a duel of yours")
    if duel.status != Duel.Status.RUNNING:
        raise ServiceError(f"duel {duel_id} is {duel.status}: only a running duel is cancelled")
    duel.matches.filter(status__in=(Match.Status.QUEUED, Match.Status.RUNNING)).update(
        status=Match.Status.CANCELLED, lease_expires_at=None, sent_at=None
    )
    _end(duel, Duel.Status.CANCELLED)
    wake.dispatch_after_commit()
    return duel


def visible_matches(user: User | AnonymousUser, through: str = "") -> Q:
    """The matches ``user`` may see, as a filter (``through``: the path from the rows
    filtered to their match, e.g. ``"match__"`` for seats and replays): every match but
    the rounds of another person's duel. A duel is its owner's alone (issue 42: its
    rounds' pages, replays and live feeds were public); a house duel, with no owner, is
    everyone's; staff see all, as they see every duel."""
    if user.is_staff:
        return Q()
    seen = Q(**{f"{through}duel__isnull": True}) | Q(**{f"{through}duel__owner__isnull": True})
    if user.is_authenticated:
        seen |= Q(**{f"{through}duel__owner": user})
    return seen
