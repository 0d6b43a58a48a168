"""Leaderboard figures that the rating rows do not hold: W/D/L, intervals and trends.

Each function runs a fixed number of queries, however many bots or matches there are.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import F, Window
from django.db.models.functions import RowNumber

from tournaments import ratings
from tournaments.models import Match, RatingHistory, Seat

#: Ratings shown in a bot's trend on the leaderboard.
TREND_POINTS = 10


@dataclass
class Record:
    """A bot's pairwise results over its rated matches (a two-player match is one pair)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def pairs(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class Trend:
    """A bot's last ratings, oldest first."""

    points: list[float] = field(default_factory=list)

    @property
    def change(self) -> float:
        return self.points[-1] - self.points[0] if len(self.points) > 1 else 0.0


def records(game: str) -> dict[int, Record]:
    """Wins, draws and losses per bot id in the rated, finished matches of ``game``."""
    rated = Match.objects.filter(game=game, status=Match.Status.DONE, rating_seq__isnull=False)
    places = dict(rated.values_list("id", "result"))
    seats: dict[int, list[int]] = defaultdict(list)
    for match_id, bot_id in (
        Seat.objects.filter(match__in=rated)
        .order_by("match_id", "index")
        .values_list("match_id", "version__bot_id")
    ):
        seats[match_id].append(bot_id)
    table: dict[int, Record] = defaultdict(Record)
    for match_id, bots in seats.items():
        result = places.get(match_id) or {}
        for a, b, score in ratings.pairwise(bots, result.get("places", [])):
            _count(table[a], score)
            _count(table[b], 1.0 - score)
    return dict(table)


def _count(record: Record, score: float) -> None:
    if score == 1.0:
        record.wins += 1
    elif score == 0.0:
        record.losses += 1
    else:
        record.draws += 1


def interval(pairs: int) -> float | None:
    """Half-width of a 95% interval of an Elo measured from ``pairs`` pairwise results.

    A global rating moves match by match and carries no error of its own; this is the
    standard error of an Elo estimate from that many results at even odds
    (400 / ln 10 / sqrt(pairs / 4)), times 1.96. None when there are no results.
    """
    if pairs <= 0:
        return None
    return ratings.Z95 * ratings.SCALE / math.log(10.0) * 2.0 / math.sqrt(pairs)


def trends(game: str, points: int = TREND_POINTS) -> dict[int, Trend]:
    """Each bot's last ``points`` ratings in ``game`` (its rating before them first)."""
    latest = (
        RatingHistory.objects.filter(game=game)
        .annotate(recent=Window(RowNumber(), partition_by=[F("bot_id")], order_by=F("id").desc()))
        .filter(recent__lte=points)
        .order_by("bot_id", "id")
        .values_list("bot_id", "before", "after")
    )
    table: dict[int, Trend] = {}
    for bot_id, before, after in latest:
        trend = table.setdefault(bot_id, Trend([before]))
        trend.points.append(after)
    return table
