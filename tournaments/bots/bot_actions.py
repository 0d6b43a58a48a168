"""Making bots and their versions: each function one transaction (see docs/architecture.md).

A bot's name is checked against look-alikes of known names as it is made; a version is found by the
hash of its code, so the same code uploaded twice is one version.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max

from judge.games import game_class
from tournaments.bots import lookalikes
from tournaments.errors import ServiceError
from tournaments.models import Bot, BotVersion


def create_bot(owner: User | None, game: str, name: str, house_policy: str = "") -> Bot:
    """The new bot, or ServiceError when its name repeats the owner's or looks like a
    known bot's of the game (a copy of a known bot's name must not pass for it: the look
    is claimed in the transaction that makes the bot, lookalikes.claim_bot_look)."""
    game_class(game)  # refuses an unknown game, naming the ones there are
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, game=game, name=name, house_policy=house_policy)
            lookalikes.claim_bot_look(bot)
            return bot
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
    bot = owner_less_bot(game, f"house:{policy}", policy)
    return add_version(bot, b"", f"house:{game}:{policy}", BotVersion.Status.ACCEPTED)


def owner_less_bot(game: str, name: str, policy: str) -> Bot:
    """The site's own bot ``name`` of ``game`` (a house bot, the person's seat), made at
    its first use. The unique name constraint does not cover bots without an owner (NULLs
    differ), so concurrent first uses may make two alike: the oldest is the one used from
    then on, and the other, as good, stays in the seats it was given."""
    mine = Bot.objects.filter(owner=None, game=game, name=name).order_by("pk")
    found = mine.first()
    if found is None:
        found = Bot.objects.create(owner=None, game=game, name=name, house_policy=policy)
    return found
