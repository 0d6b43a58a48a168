"""Names that would pass for another (issue 31): the look of every user name, and of every
bot name within its game, is kept (NameSkeleton, filled on creation by the signals
connected in apps.py), so a new name is compared with all of them in one index lookup.

A user name that looks like another user's is refused at sign-up; a bot name that looks
like another owner's bot of the same game is refused when the bot is made (an owner's own
look-alike names collide too). Exact repeats are left to the checks that already name
them ("that name is taken", one bot name per owner and game).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from tournaments.bots.names import skeleton
from tournaments.models import Bot, NameSkeleton


def bot_look(game: str, name: str) -> str:
    return f"{game}:{skeleton(name)}"


def user_like(name: str) -> str | None:
    """The name of another user that ``name`` looks like but is not, or None."""
    row = NameSkeleton.objects.filter(kind=NameSkeleton.Kind.USER, look=skeleton(name))
    found = row.select_related("user").first()
    if found is None or found.user is None or found.user.username.casefold() == name.casefold():
        return None
    return found.user.username


def bot_like(game: str, name: str, owner_id: int | None) -> Bot | None:
    """The bot of this game that ``name`` looks like, unless it is the owner's own of the
    very same name (that one is refused as a repeat), or None."""
    row = NameSkeleton.objects.filter(kind=NameSkeleton.Kind.BOT, look=bot_look(game, name))
    found = row.select_related("bot__owner").first()
    if found is None or found.bot is None:
        return None
    if found.bot.owner_id == owner_id and found.bot.name == name:
        return None
    return found.bot


def remember_user(sender: Any, instance: User, created: bool, **kwargs: Any) -> None:
    if created:
        look = skeleton(instance.username)
        row = NameSkeleton(kind=NameSkeleton.Kind.USER, look=look, user=instance)
        NameSkeleton.objects.bulk_create([row], ignore_conflicts=True)


def remember_bot(sender: Any, instance: Bot, created: bool, **kwargs: Any) -> None:
    if created:
        look = bot_look(instance.game, instance.name)
        row = NameSkeleton(kind=NameSkeleton.Kind.BOT, look=look, bot=instance)
        NameSkeleton.objects.bulk_create([row], ignore_conflicts=True)
