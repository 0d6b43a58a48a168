"""State changes the API needs beyond the rooms' own actions: a checked upload, a quick match.

Each is one transaction; the check or the match is enqueued only after it commits.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from judge.bots import policies
from judge.games import game_class
from judge.rng import derive_seed
from tournaments.bots import bot_actions
from tournaments.bots.uploads import Bundle
from tournaments.errors import ServiceError
from tournaments.guard import quotas
from tournaments.models import Bot, BotVersion, Match, Seat
from tournaments.play import queued_work
from tournaments.play.dispatch import dispatch_after_commit
from tournaments.play.version_checks import enqueue_check

#: Games a quick match may have (each a short match; it is unrated).
QUICK_MAX_GAMES = 10


@transaction.atomic
def upload_version(bot: Bot, bundle: Bundle) -> tuple[BotVersion, bool]:
    """The version holding this code, and whether it is new (a new one is checked)."""
    if bot.retired:
        raise ServiceError(f"bot {bot.name!r} is retired; it takes no new versions")
    known = bot.versions.filter(content_hash=bundle.content_hash).exists()
    if not known:
        quotas.check_upload(bot.owner)
    version = bot_actions.add_version(bot, bundle.code, bundle.content_hash)
    if not known or bot_actions.check_again_if_host_failed(version):
        enqueue_check(version.pk)
    return version, not known


@transaction.atomic
def retire_bot(bot: Bot) -> Bot:
    """A retired bot keeps its matches and rating but enters no new tournament; its
    checks and quick matches still waiting are dropped."""
    Bot.objects.filter(pk=bot.pk).update(retired=True)
    queued_work.withdraw_queued(bot.versions.only("id"))
    bot.retired = True
    return bot


@transaction.atomic
def retire_version(version: BotVersion) -> BotVersion:
    """A retired version keeps its matches but enters no new tournament or match; its
    check and quick matches still waiting are dropped."""
    BotVersion.objects.filter(pk=version.pk).update(retired=True)
    queued_work.withdraw_queued([version])
    version.retired = True
    return version


def request_quick_match(
    version: BotVersion,
    opponents: Sequence[BotVersion],
    house_bots: Sequence[str],
    games: int,
    seed: int | None = None,
    requested_by: User | None = None,
) -> Match:
    """An unrated match of ``version`` against the chosen opponents, queued after commit."""
    game = version.bot.game
    engine = game_class(game)
    players = 1 + len(opponents) + len(house_bots)
    if not engine.min_players <= players <= engine.max_players:
        raise ServiceError(
            f"{game} tables seat {engine.min_players} to {engine.max_players}, not {players}; "
            "choose fewer or more opponents"
        )
    for seat in (version, *opponents):
        if seat.retired or seat.bot.retired:
            raise ServiceError(f"{seat} is retired; it plays no new match")
    for other in opponents:
        if other.bot.game != game:
            raise ServiceError(f"{other} plays {other.bot.game}, not {game}")
        if other.status != BotVersion.Status.ACCEPTED:
            raise ServiceError(f"{other} is {other.status}; opponents must be accepted")
    unknown = sorted(set(house_bots) - set(policies(game)))
    if unknown:
        raise ServiceError(
            f"no house bot {unknown[0]!r} for {game}; choose from {sorted(policies(game))}"
        )
    if not 1 <= games <= QUICK_MAX_GAMES:
        raise ServiceError(f"a quick match has 1 to {QUICK_MAX_GAMES} games, not {games}")
    quotas.check_quick_match(requested_by)
    with transaction.atomic():
        seated = [version, *opponents]
        seated += [bot_actions.house_version(game, name) for name in house_bots]
        match = Match.objects.create(
            game=game,
            games=games,
            rated=False,
            seed=derive_seed(secrets.randbits(48) if seed is None else seed, "quick"),
            enqueued_at=timezone.now(),
            requested_by=requested_by,
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version=seat) for i, seat in enumerate(seated)
        )
        dispatch_after_commit()  # it waits for its owner's turn at a free process
    return match
