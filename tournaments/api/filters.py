"""Filters of every list (query parameters; the schema lists them)."""

from __future__ import annotations

from typing import Any

import django_filters  # type: ignore[import-untyped]
from django import forms
from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
from django.db.models import BooleanField, F, Func, QuerySet

from judge import games
from tournaments.models import Bot, BotVersion, Match, Rating, Seat, Tournament

#: Read from the registry when a filter is built (a game registered later is a choice too).
GAME_CHOICES = games.choices
MAX_ID = 2**63 - 1


class BotFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    owner = django_filters.CharFilter(field_name="owner__username")
    house = django_filters.BooleanFilter(field_name="owner", lookup_expr="isnull")
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Bot
        fields = ("game", "owner", "house", "retired", "name")


class VersionFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(field_name="bot__game", choices=GAME_CHOICES)
    owner = django_filters.CharFilter(field_name="bot__owner__username")
    status = django_filters.ChoiceFilter(choices=BotVersion.Status.choices)

    class Meta:
        model = BotVersion
        fields = ("bot", "game", "owner", "status", "retired")


class TournamentFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    owner = django_filters.CharFilter(field_name="owner__username")
    status = django_filters.ChoiceFilter(choices=Tournament.Status.choices)

    class Meta:
        model = Tournament
        fields = ("game", "owner", "status", "rated")


class IdFilter(django_filters.NumberFilter):
    """A row id: a whole number a database column can hold (a 20-digit id is a 400, not
    an overflow inside SQLite)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, min_value=1, max_value=MAX_ID, **kwargs)


class MatchFilter(django_filters.FilterSet):
    bot = IdFilter(method="by_bot", label="a bot id: its matches")
    version = IdFilter(method="by_version", label="a bot version id")
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)

    class Meta:
        model = Match
        fields = ("tournament", "bot", "version", "game", "status", "rated")

    def by_bot(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return seated(queryset, Seat.objects.filter(bot_id=value))

    def by_version(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return seated(queryset, Seat.objects.filter(version_id=value))


def seated(queryset: QuerySet[Match], seats: QuerySet[Seat]) -> QuerySet[Match]:
    """The matches with a seat in ``seats``.

    On PostgreSQL as ``id = ANY(ARRAY(seats' match ids))``: asked as ``id IN (...)``, the
    planner walks the match index from the newest match back until it meets the seats'
    (a popular version retired long ago: 450,000 entries, 340 ms, at 500,000 matches);
    this reads the version's or bot's own seats (index) and then those matches only
    (5 ms there), whatever the size of the match table."""
    ids = seats.values("match_id")
    if connection.vendor != "postgresql":
        return queryset.filter(pk__in=ids)
    return queryset.filter(EqualsAny(F("pk"), ArraySubquery(ids)))


class EqualsAny(Func):
    """The condition ``lhs = ANY(array)`` (a filter on a boolean expression: a right-hand
    side of ``pk=`` would be written in parentheses, which ``ANY`` does not take)."""

    template = "%(expressions)s)"
    arg_joiner = " = ANY("
    output_field = BooleanField()


class LeaderboardFilter(django_filters.FilterSet):
    owner = django_filters.CharFilter(field_name="bot__owner__username")
    retired = django_filters.BooleanFilter(field_name="bot__retired")

    class Meta:
        model = Rating
        fields = ("owner", "retired")
