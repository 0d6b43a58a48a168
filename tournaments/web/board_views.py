"""The home page and the leaderboard of each game."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString

from judge import games as registry
from judge.games import GAMES
from tournaments.models import Bot, BotVersion, Rating, Tournament
from tournaments.web import charts, stats

LEADERBOARD_ROWS = 200


@dataclass(frozen=True)
class Row:
    place: int
    rating: Rating
    interval: float | None
    trend: stats.Trend
    spark: SafeString


def home(request: HttpRequest) -> HttpResponse:
    recent = Tournament.objects.select_related("owner").order_by("-id")[:10]
    context = {"games": registry.choices(), "tournaments": recent, "mine": your_bots(request)}
    return render(request, "web/home.html", context)


def your_bots(request: HttpRequest) -> list[Bot]:
    """The signed-in user's bots, each with its rating and its latest version's status."""
    if not request.user.is_authenticated:
        return []
    latest = BotVersion.objects.filter(bot=OuterRef("pk")).order_by("-number")
    return list(
        Bot.objects.filter(owner_id=request.user.pk)
        .select_related("rating")
        .annotate(
            latest_number=Subquery(latest.values("number")[:1]),
            latest_status=Subquery(latest.values("status")[:1]),
        )
        .order_by("game", "name")
    )


def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    if game not in GAMES:
        raise Http404(f"no game {game!r}")
    found = list(
        Rating.objects.filter(game=game, bot__retired=False)
        .select_related("bot__owner")
        .order_by("-elo", "bot_id")[:LEADERBOARD_ROWS]
    )
    trends = stats.trends({rating.bot_id: rating.matches for rating in found})
    rows = []
    for place, rating in enumerate(found, start=1):
        trend = trends.get(rating.bot_id, stats.Trend())
        spark = charts.sparkline(trend.points, f"last ratings of {rating.bot.name}")
        rows.append(Row(place, rating, stats.interval(rating.pairs), trend, spark))
    context = {"game": game, "title": registry.title(game), "rows": rows}
    return render(request, "web/leaderboard.html", context)
