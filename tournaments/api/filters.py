"""Filters of every list (query parameters; the schema lists them)."""

from __future__ import annotations

from typing import Any

import django_filters  # type: ignore[import-untyped]
from django import forms
from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
from django.db.models import BooleanField, F, Func, OuterRef, QuerySet, Subquery

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

    def filter_queryset(self, queryset: QuerySet[Match]) -> QuerySet[Match]:
        """Every other filter first, then the seats' (``bot``, ``version``) or, without
        them and ``tournament``, every one of WALKED given: bounded by the page the
        request asks for (``paged_seats``, ``paged_walk``) where the list is paged."""
        data = self.form.cleaned_data
        by_seat = {name: data[name] for name in ("bot", "version") if data.get(name) is not None}
        walked = {}
        if not by_seat and data.get("tournament") is None:
            walked = {name: data[name] for name in WALKED if data.get(name) not in (None, "")}
        for name in (*by_seat, *walked):
            del data[name]
        queryset = super().filter_queryset(queryset)
        data.update(by_seat)
        data.update(walked)
        for name, value in by_seat.items():
            seats = Seat.objects.filter(**{f"{name}_id": value})
            page = paged_seats(self.request, queryset, seats)
            queryset = seated(queryset, seats) if page is None else queryset.filter(page)
        if walked:
            page = paged_walk(self.request, queryset, walked)
            queryset = queryset.filter(**walked) if page is None else queryset.filter(page)
        return queryset


#: The match list's filters that ``paged_walk`` walks an index of: every set of them
#: given together has a (fields..., id) index in this order (``match_game_id``,
#: ``match_game_status_id``, ``match_game_status_rated_id``, ...).
WALKED = ("game", "status", "rated")


def page_position(request: Any, queryset: QuerySet[Match]) -> tuple[bool, Any, int] | None:
    """For a request paged by the match id (its cursor pagination): whether its page runs
    down the ids, the cursor's position (None: the first page) and the rows the page's
    query may need (its size, one more, and the cursor's offset). None where the request
    is not paged by the match id (nor for one match: ``retrieve``)."""
    view = getattr(request, "parser_context", {}).get("view")
    paginator = getattr(view, "paginator", None)
    if paginator is None or not hasattr(paginator, "decode_cursor"):
        return None
    if getattr(view, "action", "list") != "list":
        return None
    ordering = paginator.get_ordering(request, queryset, view)
    if ordering[0].lstrip("-") not in ("id", "pk"):
        return None
    default, paginator.ordering = paginator.ordering, ordering  # as paginate_queryset checks
    try:
        cursor = paginator.decode_cursor(request)
    finally:
        paginator.ordering = default
    descending = ordering[0].startswith("-") != bool(cursor and cursor.reverse)
    position = cursor.position if cursor is not None else None
    rows = paginator.get_page_size(request) + 1 + (cursor.offset if cursor else 0)
    return descending, position, rows


def paged_walk(request: Any, queryset: QuerySet[Match], walked: dict[str, Any]) -> Any:
    """The condition "is one of the matches of the page the request asks for, among
    ``queryset``'s with each field of ``walked`` at its value": ``id = ANY(ARRAY(...))``
    of at most the page's rows plus one, found by walking the (fields..., id) index of
    those fields from the cursor's position, stopping at the page's last row whatever the
    length of the history. None where the request is not paged by the match id.

    The walk asks ``name >= value AND name <= value`` for each field, ordered by (the
    fields, id): asked as ``name = value`` ordered by id, the planner walked the match
    key from the newest match and skipped every other game's (it expects a game's matches
    spread evenly over the key: 166,667 entries for a page at 500,000 matches where the
    game's matches lay together, as a game no longer played has them; issue 47). A range
    is no constant to the planner, so only that index gives the order. Every set of the
    fields has its own index: walking one field's and filtering by another read, for a
    status none of a game's matches has, the game's whole history."""
    found = page_position(request, queryset)
    if found is None:
        return None
    descending, position, rows = found
    names = [name for name in WALKED if name in walked]
    ranges = {f"{name}__{end}": walked[name] for name in names for end in ("gte", "lte")}
    walk = queryset.order_by().filter(**ranges)
    if position is not None:
        walk = walk.filter(**{"id__lt" if descending else "id__gt": position})
    sign = "-" if descending else ""
    page = walk.order_by(*(f"{sign}{name}" for name in (*names, "id"))).values("pk")[:rows]
    return EqualsAny(F("pk"), ArraySubquery(page))


def paged_seats(request: Any, queryset: QuerySet[Match], seats: QuerySet[Seat]) -> Any:
    """The condition "is one of the matches of the page the request asks for, among
    ``queryset``'s with a seat in ``seats``": ``id = ANY(ARRAY(...))`` of at most the
    page's rows plus one, found by walking the seats' (bot, match) or (version, match)
    index from the cursor's position in the page's order, each seat's match checked
    against ``queryset``'s conditions by its primary key (a subquery per seat, which the
    planner cannot turn into a walk of the match table), stopping at the page's last row
    whatever the length of the history. Issue 47: ``id = ANY(ARRAY(all its seats))`` read
    all 30,758 seats of the busiest bot to show 100 matches (63 ms at 500,000 matches); a
    join let the planner walk the match index from the newest match down to a version
    retired long ago. None where the request is not paged by the match id (the
    unbounded ``seated`` then)."""
    found = page_position(request, queryset)
    if found is None:
        return None
    descending, position, rows = found
    if position is not None:
        seats = seats.filter(**{"match_id__lt" if descending else "match_id__gt": position})
    shown = queryset.order_by().filter(pk=OuterRef("match_id")).values("pk")[:1]
    page = (
        seats.annotate(shown=Subquery(shown))
        .filter(shown__isnull=False)
        .order_by("-match_id" if descending else "match_id")
        .values("match_id")
        .distinct()[:rows]
    )
    return EqualsAny(F("pk"), ArraySubquery(page))


def seated(queryset: QuerySet[Match], seats: QuerySet[Seat]) -> QuerySet[Match]:
    """The matches with a seat in ``seats`` (every one: the unpaged form, ``paged_seats``
    for a page).

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
