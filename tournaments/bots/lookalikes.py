"""Names that would pass for another (issues 31 and 42): the look of every user name, and
of every bot name within its game, is kept in NameSkeleton under a unique index, so a new
name is compared with all of them in one index lookup, and two look-alike names made at
the same moment cannot both be kept.

A user name that looks like another user's is refused at sign-up; a bot name that looks
like another owner's bot of the same game is refused when the bot is made (an owner's own
look-alike names collide too). Exact repeats are left to the checks that already name
them ("that name is taken", one bot name per owner and game).

The sign-up forms ask ``user_like`` first, to answer with their other checks; what decides
is ``claim_user_look`` and ``claim_bot_look``, called in the transaction that makes the
user or bot: the look's row is inserted, and the name is refused unless the row is its
own. Of two made at once, the second insert waits on the index for the first to commit
and finds the look taken, so the second transaction is rolled back whole (a check before
an insert let both through: ``zorro`` and ``zOrro``). Other ways of making users and bots
(the admin, management commands, house bots) keep the look when it is free
(``remember_user``, ``remember_bot``: signals connected in apps.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from tournaments.bots.names import skeleton
from tournaments.errors import ServiceError
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


def claim_user_look(user: User) -> None:
    """Keep the new ``user``'s look, or refuse the name (ServiceError) when another user
    holds it. Call it in the transaction that made the user."""
    holder = _claim(NameSkeleton(kind=NameSkeleton.Kind.USER, look=skeleton(user.username)))
    if holder.user_id == user.pk:
        return
    twin = holder.user.username if holder.user else "a former user"
    raise ServiceError(
        f"{user.username!r} looks like the user name {twin!r}; choose a name that looks different"
    )


def claim_bot_look(bot: Bot) -> None:
    """Keep the new ``bot``'s look in its game, or refuse the name (ServiceError) when
    another bot of the game holds it. Call it in the transaction that made the bot."""
    holder = _claim(NameSkeleton(kind=NameSkeleton.Kind.BOT, look=bot_look(bot.game, bot.name)))
    if holder.bot_id == bot.pk:
        return
    twin = holder.bot
    whose = "the house" if twin is None or twin.owner is None else twin.owner.username
    if twin is not None and twin.name == bot.name:
        # The same name, not a look-alike: say so plainly (issue 46).
        raise ServiceError(
            f"the name {bot.name!r} is taken: {whose} has a {bot.game} bot named "
            f"{twin.name!r}; choose another name"
        )
    named = f"named {twin.name!r}" if twin else "of that look"
    raise ServiceError(
        f"a {bot.game} bot of {whose} is {named}, which {bot.name!r} looks like; "
        "choose a name that looks different"
    )


def _claim(row: NameSkeleton) -> NameSkeleton:
    """The row that holds ``row``'s look once ``row`` was inserted if the look was free."""
    NameSkeleton.objects.bulk_create([row], ignore_conflicts=True)
    held = NameSkeleton.objects.filter(kind=row.kind, look=row.look)
    return held.select_related("user", "bot__owner").get()


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
