"""Leaderboard figures beside the stored rating rows: trends and chart samples.

Each function runs a fixed number of queries on index ranges, however many bots or
matches there are (the rating rows hold each bot's wins, draws and losses).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db import connection

from tournaments.models import RatingHistory

#: Ratings shown in a bot's trend on the leaderboard.
TREND_POINTS = 10


@dataclass
class Trend:
    """A bot's last ratings, oldest first."""

    points: list[float] = field(default_factory=list)

    @property
    def change(self) -> float:
        return self.points[-1] - self.points[0] if len(self.points) > 1 else 0.0


def trends(counts: Mapping[int, int], points: int = TREND_POINTS) -> dict[int, Trend]:
    """The last ``points`` ratings of each bot (its rating before them first), given each
    bot's count of rated matches.

    One query: the wanted (bot, seq) pairs as a VALUES list joined on the (bot, seq)
    index, so each row is one index lookup whatever the history's length. (A range per
    bot, ``seq > matches - points``, lets PostgreSQL's planner misjudge it and read the
    whole table; and 200 ORed conditions cost the ORM 12 ms to build.)
    """
    wanted = [
        (int(bot_id), seq)
        for bot_id, matches in counts.items()
        for seq in range(max(1, matches - points + 1), matches + 1)
    ]
    if not wanted:
        return {}
    table = connection.ops.quote_name(RatingHistory._meta.db_table)
    # Only integers made here go into the text (int() above): nothing a user sent.
    values = ", ".join(f"({bot_id}, {seq})" for bot_id, seq in wanted)
    query = (
        f"WITH wanted (bot, seq) AS (VALUES {values}) "
        f"SELECT h.bot_id, h.before, h.after FROM wanted JOIN {table} h "
        "ON h.bot_id = wanted.bot AND h.seq = wanted.seq ORDER BY h.bot_id, h.seq"
    )
    found: dict[int, Trend] = {}
    with connection.cursor() as cursor:
        cursor.execute(query)
        for bot_id, before, after in cursor.fetchall():
            trend = found.setdefault(bot_id, Trend([before]))
            trend.points.append(after)
    return found


def sample_numbers(total: int, points: int) -> list[int]:
    """At most ``points`` match numbers from 1 to ``total``, evenly spread, the last included:
    the rating history a chart shows (it cannot draw more points than it has pixels)."""
    if total <= points:
        return list(range(1, total + 1))
    step = (total - 1) / (points - 1)
    return sorted({1 + round(i * step) for i in range(points)})
