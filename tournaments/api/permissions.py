"""Who may do what: one ownership helper per object type, and the permissions built on them.

Everyone reads public information. Only a bot's owner reads its code, its check report
and its match logs, and uploads its versions; the owner or staff retire it. Only a
tournament's owner or staff start or cancel it. Views ask these helpers and nothing else.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from tournaments.models import Bot, BotVersion, Seat, Tournament

AnyUser = User | AnonymousUser


def owns_bot(user: AnyUser, bot: Bot) -> bool:
    """The bot's owner (house bots have none, so nobody owns them here)."""
    return bool(user.is_authenticated and bot.owner_id is not None and bot.owner_id == user.pk)


def may_change_bot(user: AnyUser, bot: Bot) -> bool:
    return owns_bot(user, bot) or bool(user.is_authenticated and user.is_staff)


def owns_version(user: AnyUser, version: BotVersion) -> bool:
    """Code, check reports and logs of a version are its bot owner's alone."""
    return owns_bot(user, version.bot)


def may_read_seat_log(user: AnyUser, seat: Seat) -> bool:
    return owns_version(user, seat.version)


def may_change_tournament(user: AnyUser, tournament: Tournament) -> bool:
    return bool(
        user.is_authenticated
        and (user.is_staff or (tournament.owner_id is not None and tournament.owner_id == user.pk))
    )


class ChangesBot(BasePermission):
    """Reading is public; changing a bot (retiring it) is for its owner or staff."""

    message = "only the bot's owner (or staff) may change it"

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        return request.method in SAFE_METHODS or may_change_bot(request.user, obj)


class ChangesVersion(BasePermission):
    """Reading is public; retiring a version is for its bot's owner or staff."""

    message = "only the bot's owner (or staff) may change its versions"

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        return request.method in SAFE_METHODS or may_change_bot(request.user, obj.bot)


class OwnsVersion(BasePermission):
    """A version's code is for its bot's owner only."""

    message = "only the bot's owner may read its code"

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        return owns_version(request.user, obj)


class ChangesTournament(BasePermission):
    message = "only the tournament's owner (or staff) may start or cancel it"

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        return request.method in SAFE_METHODS or may_change_tournament(request.user, obj)
