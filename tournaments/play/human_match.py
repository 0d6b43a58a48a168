"""A person's match against bots: one seat is the person's, the others house bots or bots.

Queued and played like a quick match (the dispatcher gives it to a free worker process,
which holds it while the person plays), unrated, kept with its replay. Bounded: one live
match per person, the quick-match quota per hour, one game of one unit of each repeating
option (a deal, a hand), and clocks generous for a person but finite: a person who stops
answering times out like a silent bot (the seat is retired and the engine plays for it).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from judge.bots import policies
from judge.games import game_class
from judge.referee import TimeControl
from judge.rng import derive_seed
from tournaments.bots import bot_actions
from tournaments.errors import ServiceError
from tournaments.guard import quotas
from tournaments.models import Bot, BotVersion, Match, Seat
from tournaments.play.human_seat import PERSON_POLICY, table_redis
from tournaments.wake import dispatch_after_commit

#: The person's clocks: a minute a move, plus a three-minute bank over the match. The
#: whole match stays within the worker's wall-clock budget (MATCH_BUDGET_CAP_SECONDS).
PERSON_CLOCKS = TimeControl(startup_s=10.0, move_s=60.0, bank_s=180.0)
PERSON_REPORT = "stands for a person at a table (/play/GAME/), never for a bot elsewhere"
#: The person's seat at the table.
PERSON_SEAT = 0


def person_version(game: str) -> BotVersion:
    """The version that stands for "a person" at ``game``'s tables (one per game).

    Its status is "rejected", with a report that says why: every other way into a match
    (tournaments, quick matches, duels, the ladder) takes accepted versions only, so a
    person's seat is never given to a match that no person sits at."""
    bot, _ = Bot.objects.get_or_create(
        owner=None, game=game, name="person", defaults={"house_policy": PERSON_POLICY}
    )
    version = bot_actions.add_version(bot, b"", f"person:{game}", BotVersion.Status.REJECTED)
    if not version.check_report:
        version.check_report = {"passed": False, "verdict": "person", "reason": PERSON_REPORT}
        version.save(update_fields=["check_report"])
    return version


def live_match_of(user: User) -> Match | None:
    """The person's match still queued or being played, if any."""
    return (
        Match.objects.filter(
            requested_by=user,
            seats__bot__house_policy=PERSON_POLICY,
            status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
        )
        .order_by("-pk")
        .first()
    )


def person_seat_of(match: Match) -> int | None:
    """The seat index the person holds in ``match`` (None: no person plays it)."""
    seat = match.seats.filter(bot__house_policy=PERSON_POLICY).only("index").first()
    return None if seat is None else seat.index


def request_human_match(
    user: User,
    game: str,
    opponents: Sequence[BotVersion | str],
    variant: str = "",
) -> Match:
    """Queue a match of ``user`` against ``opponents`` (bot versions, or house bot names);
    ServiceError (or QuotaExceeded) says in words what is wrong."""
    engine = game_class(game)
    players = 1 + len(opponents)
    if not engine.min_players <= players <= engine.max_players:
        raise ServiceError(
            f"{game} tables seat {engine.min_players} to {engine.max_players}, not {players}; "
            "choose fewer or more opponents"
        )
    if variant and variant not in engine.variants:
        raise ServiceError(f"{game} has no variant {variant!r}; choose from {engine.variants}")
    _check_opponents(game, opponents)
    try:
        table_redis().ping()
    except Exception as error:  # TableUnavailable, or a Redis that does not answer
        raise ServiceError(f"live tables are not available on this server ({error})") from None
    if live_match_of(user) is not None:
        raise ServiceError("you already have a match at a table; finish it first")
    quotas.check_quick_match(user)
    with transaction.atomic():
        seated = [person_version(game)]
        seated += [
            bot_actions.house_version(game, o) if isinstance(o, str) else o for o in opponents
        ]
        match = Match.objects.create(
            game=game,
            variant=variant,
            options={name: 1 for name in engine.repeat_options},
            games=1,
            rated=False,
            seed=derive_seed(secrets.randbits(48), "person"),
            time_control=PERSON_CLOCKS.to_json(),
            enqueued_at=timezone.now(),
            requested_by=user,
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version=version) for i, version in enumerate(seated)
        )
        dispatch_after_commit()
    return match


def _check_opponents(game: str, opponents: Sequence[BotVersion | str]) -> None:
    for other in opponents:
        if isinstance(other, str):
            if other not in policies(game):
                raise ServiceError(
                    f"no house bot {other!r} for {game}; choose from {sorted(policies(game))}"
                )
            continue
        if other.bot.game != game:
            raise ServiceError(f"{other} plays {other.bot.game}, not {game}")
        if other.status != BotVersion.Status.ACCEPTED or other.retired or other.bot.retired:
            raise ServiceError(f"{other} is not an accepted, active version; choose another")
