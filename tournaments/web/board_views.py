"""The home page and the leaderboard of each game."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString

from judge.games import GAMES
from tournaments.models import Rating, Tournament
from tournaments.web import charts, stats
from tournaments.web.forms import GAME_TITLES

LEADERBOARD_ROWS = 200


@dataclass(frozen=True)
class Row:
    place: int
    rating: Rating
    interval: float | None
    record: stats.Record
    trend: stats.Trend
    spark: SafeString


def home(request: HttpRequest) -> HttpResponse:
    recent = Tournament.objects.select_related("owner").order_by("-id")[:10]
    games = [(name, GAME_TITLES.get(name, name)) for name in GAMES]
    return render(request, "web/home.html", {"games": games, "tournaments": recent})


def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    if game not in GAMES:
        raise Http404(f"no game {game!r}")
    found = list(
        Rating.objects.filter(game=game, bot__retired=False)
        .select_related("bot__owner")
        .order_by("-elo", "bot_id")[:LEADERBOARD_ROWS]
    )
    records = stats.records(game)
    trends = stats.trends(game)
    rows = []
    for place, rating in enumerate(found, start=1):
        record = records.get(rating.bot_id, stats.Record())
        trend = trends.get(rating.bot_id, stats.Trend())
        spark = charts.sparkline(trend.points, f"last ratings of {rating.bot.name}")
        rows.append(Row(place, rating, stats.interval(record.pairs), record, trend, spark))
    context = {"game": game, "title": GAME_TITLES.get(game, game), "rows": rows}
    return render(request, "web/leaderboard.html", context)
