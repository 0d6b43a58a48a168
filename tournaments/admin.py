"""The Django admin for every model; matches and ratings are read mostly, code never shown.

At a big site's size (hundreds of thousands of matches) every list page joins what it
shows (list_select_related: no query per row), foreign keys are raw id fields (a select
box would load every bot version), searches look up indexed columns exactly, no page
counts the whole table (show_full_result_count, and the paginator counts at most
COUNT_CAP rows), and the game filter offers the registry's games instead of asking the
table for its distinct values. So a list page costs the same at any size.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils.functional import cached_property

from judge import games as registry
from tournaments.competitions import competition_actions
from tournaments.fairplay import voiding
from tournaments.guard import queryparams
from tournaments.models import (
    Bot,
    BotVersion,
    Duel,
    FairPlayFlag,
    FieldPass,
    Ladder,
    Match,
    Rating,
    RatingHistory,
    Seat,
    Tournament,
)

#: Rows a list page counts at most: past it the page says "more than" this many, and
#: offers pages up to it (filters and searches find anything further).
COUNT_CAP = 10_000


class CappedPaginator(Paginator):
    """Counts at most COUNT_CAP + 1 rows (one bounded index range), never the table.

    ``capped`` tells the pagination template to say "more than" (see
    templates/admin/tournaments/pagination.html).
    """

    @cached_property
    def count(self) -> int:
        rows = self.object_list
        if not isinstance(rows, QuerySet):
            return len(rows)
        return rows.order_by()[: COUNT_CAP + 1].count()

    @property
    def capped(self) -> bool:
        return self.count > COUNT_CAP


class GameFilter(admin.SimpleListFilter):
    """The game, from the game registry. Django's filter on a plain field lists the
    column's values with SELECT DISTINCT over the whole table on every list page (60 ms
    at 500,000 matches, 1.5 million rating changes, and growing with them)."""

    title = "game"
    parameter_name = "game"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return registry.choices()

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(game=value) if value else queryset


#: Related rows an admin search looks through (say, the bots of the users of that name).
SEARCH_CAP = 100


def whole_key(term: str) -> int | None:
    """``term`` as a row id when it is one (ASCII digits a bigint holds), else None."""
    try:
        return queryparams.whole_number("q", term, low=1)
    except queryparams.BadParameter:
        return None


class BigTableAdmin(admin.ModelAdmin):
    """Settings every list of a large table shares, and a search through indexes.

    The admin's own search on ``=field`` compares ``UPPER(field::text)``, which no index
    serves: a search by id read the whole match table (1.5 s at 500,000 matches). Here each
    ``=field`` of ``search_fields`` is an exact, case-sensitive match on the column (an id
    only when the term is one), and ``=relation__field`` looks the related rows up first
    (at most SEARCH_CAP of them), so each part of the search is one index range."""

    show_full_result_count = False
    list_per_page = 50
    paginator = CappedPaginator

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        found = Q(pk__in=[])
        for path in (field.lstrip("=") for field in self.search_fields):
            found |= indexed_match(queryset.model, path, term)
        return queryset.filter(found), False


def indexed_match(model: Any, path: str, term: str) -> Q:
    """Rows of ``model`` whose ``path`` (a field, or relation__field) is exactly ``term``."""
    relation, _, rest = path.partition("__")
    field = model._meta.get_field(relation)
    if rest:  # the related rows' ids first: an OR with a subquery would use no index
        related = field.related_model._default_manager.filter(
            indexed_match(field.related_model, rest, term)
        )
        return Q(**{f"{relation}__in": list(related.values_list("pk", flat=True)[:SEARCH_CAP])})
    if field.get_internal_type() in ("AutoField", "BigAutoField", "BigIntegerField"):
        key = whole_key(term)
        return Q(**{relation: key}) if key is not None else Q(pk__in=[])
    return Q(**{relation: term})


@admin.register(Bot)
class BotAdmin(BigTableAdmin):
    list_display = ("name", "game", "owner", "house_policy", "retired", "created_at")
    list_select_related = ("owner",)
    list_filter = (GameFilter, "retired")
    search_fields = ("=name", "=owner__username")
    raw_id_fields = ("owner",)


@admin.register(BotVersion)
class BotVersionAdmin(BigTableAdmin):
    list_display = ("bot", "number", "status", "content_hash", "created_at")
    list_select_related = ("bot",)
    list_filter = ("status",)
    search_fields = ("=bot__name",)  # a content hash alone has no index
    exclude = ("code",)
    readonly_fields = ("bot", "number", "content_hash")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).defer("code", "check_report")


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("index", "version", "bot")
    readonly_fields = ("index", "version", "bot")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("version__bot", "bot").defer("log")


@admin.register(Tournament)
class TournamentAdmin(BigTableAdmin):
    list_display = ("name", "game", "status", "matches_done", "matches_total", "created_at")
    list_select_related = ("owner",)
    list_filter = (GameFilter, "status")
    search_fields = ("=name",)
    raw_id_fields = ("owner", "participants")


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    """One row per game; pausing here cancels its matches not yet started, as the
    ``ladder pause`` command does."""

    list_display = ("game", "paused", "table_size", "deals", "duplicate", "updated_at")
    list_editable = ("paused",)
    actions = ("pause", "resume")

    @admin.action(description="Pause the selected ladders")
    def pause(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        for row in queryset:
            competition_actions.pause_ladder(row.game, paused=True)

    @admin.action(description="Resume the selected ladders")
    def resume(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        for row in queryset:
            competition_actions.pause_ladder(row.game, paused=False)

    def save_model(self, request: HttpRequest, obj: Ladder, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if "paused" in form.changed_data:
            competition_actions.pause_ladder(obj.game, paused=obj.paused)


@admin.register(Match)
class MatchAdmin(BigTableAdmin):
    list_display = ("id", "tournament", "ladder", "number", "game", "status", "attempt", "worker")
    list_select_related = ("tournament", "ladder")
    list_filter = ("status", GameFilter)
    ordering = ("-id",)  # newest first, along the (game, id) and (status, id) indexes
    search_fields = ("=id", "=tournament__name")
    inlines = (SeatInline,)
    raw_id_fields = ("tournament", "ladder", "duel")
    readonly_fields = ("attempt", "lease_expires_at", "worker", "rating_seq")


@admin.register(Duel)
class DuelAdmin(BigTableAdmin):
    """Duels (issue 35): read here; the owner cancels one from its page or the API."""

    list_display = ("id", "game", "b", "a", "status", "owner", "created_at")
    list_select_related = ("owner", "a__bot", "b__bot")
    list_filter = ("status", GameFilter)
    ordering = ("-id",)
    search_fields = ("=id", "=owner__username")
    raw_id_fields = ("owner", "a", "b", "panel")
    readonly_fields = ("state", "seed")


@admin.register(Seat)
class SeatAdmin(BigTableAdmin):
    list_display = ("match", "index", "version", "bot")
    list_select_related = ("match", "version__bot", "bot")
    raw_id_fields = ("match", "version", "bot")
    search_fields = ("=match__id",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).defer("log", "version__code", "match__replay")


@admin.register(Rating)
class RatingAdmin(BigTableAdmin):
    list_display = (
        "bot",
        "game",
        "elo",
        "deviation",
        "units",
        "matches",
        "wins",
        "draws",
        "losses",
        "updated_at",
    )
    list_select_related = ("bot",)
    list_filter = (GameFilter,)
    search_fields = ("=bot__name",)
    raw_id_fields = ("bot",)


@admin.register(FieldPass)
class FieldPassAdmin(admin.ModelAdmin):
    """Each game's last field pass (tournaments.rating.stored.field_view), read-only. Deleting a
    game's row has the next beat refit its field though nothing new was rated (after
    ``recompute_ratings --write``, or a change of the field's model)."""

    list_display = ("game", "ran_at", "seconds", "bots", "matches", "running_since")
    readonly_fields = ("game", "bots", "matches", "ran_at", "seconds", "running_since")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(RatingHistory)
class RatingHistoryAdmin(BigTableAdmin):
    list_display = ("bot", "match", "seq", "game", "before", "after", "created_at")
    list_select_related = ("bot", "match")
    ordering = ("-id",)
    list_filter = (GameFilter,)
    search_fields = ("=bot__name",)
    raw_id_fields = ("bot", "match")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).defer("match__replay", "match__result")


@admin.register(FairPlayFlag)
class FairPlayFlagAdmin(admin.ModelAdmin):
    """The fair-play audits' flags with their evidence (docs/fair-play.md): staff dismiss
    one, or void the version's rated results and recompute the ratings."""

    list_display = (
        "id",
        "kind",
        "game",
        "version",
        "partner",
        "status",
        "current",
        "effect",
        "statistic",
        "p_value",
        "threshold",
        "deals",
        "matches",
        "updated_at",
    )
    list_select_related = ("version__bot", "partner__bot")
    list_filter = ("status", "kind", "current", GameFilter)
    # The status changes only by the actions (voiding recomputes; a plain edit would not).
    readonly_fields = (*list_display[1:], "evidence", "created_at")
    fields = (*readonly_fields, "note")
    actions = ("dismiss", "void_and_recompute")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # flags come from the audits

    @admin.action(description="Dismiss the selected flags (unfounded)")
    def dismiss(self, request: HttpRequest, queryset: QuerySet[FairPlayFlag]) -> None:
        for flag in queryset:
            try:
                voiding.dismiss(flag, f"by {request.user}")
            except voiding.FlagClosed as closed:
                self.message_user(request, str(closed), level="error")

    @admin.action(description="Void the versions' rated results and recompute the ratings")
    def void_and_recompute(self, request: HttpRequest, queryset: QuerySet[FairPlayFlag]) -> None:
        for flag in queryset:
            try:
                done = voiding.void(flag, f"by {request.user}")
            except voiding.FlagClosed as closed:
                self.message_user(request, str(closed), level="error")
                continue
            self.message_user(
                request,
                f"flag {flag.pk}: {len(done.matches)} matches of version {done.version} "
                f"voided; ratings recomputed ({done.ratings_changed} bots changed)",
            )
