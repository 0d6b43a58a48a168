"""The Django admin for every model; matches and ratings are read mostly, code never shown."""

from __future__ import annotations

from django.contrib import admin

from tournaments.models import Bot, BotVersion, Match, Rating, RatingHistory, Seat, Tournament


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "owner", "house_policy", "retired", "created_at")
    list_filter = ("game", "retired")
    search_fields = ("name", "owner__username")


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("bot", "number", "status", "content_hash", "created_at")
    list_filter = ("status", "bot__game")
    exclude = ("code",)
    readonly_fields = ("bot", "number", "content_hash")


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    readonly_fields = ("index", "version")


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "status", "matches_done", "matches_total", "created_at")
    list_filter = ("game", "status")
    filter_horizontal = ("participants",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "tournament", "number", "game", "status", "attempt", "worker")
    list_filter = ("status", "game")
    inlines = (SeatInline,)
    readonly_fields = ("attempt", "lease_expires_at", "worker", "rating_seq")


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("match", "index", "version")


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("bot", "game", "elo", "matches", "updated_at")
    list_filter = ("game",)


@admin.register(RatingHistory)
class RatingHistoryAdmin(admin.ModelAdmin):
    list_display = ("bot", "match", "game", "before", "after", "created_at")
    list_filter = ("game",)
