"""Leaderboard figures beside the stored rating rows: trends and chart samples.

Each function runs a fixed number of queries on index ranges, however many bots or
matches there are (the rating rows hold each bot's wins, draws and losses).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

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

    One query: each bot's rows as a LATERAL subquery that walks the (bot, seq) index back
    from the bot's last match and stops after ``points`` rows, so the plan is one short
    index range per bot whatever the history's length. (A VALUES list of the wanted
    (bot, seq) pairs joined to the table let the planner hash it against a parallel scan
    of the whole history at 50,000 matches, 182,000 rows, and return to the index at
    500,000: issue 47. A LIMIT inside a LATERAL leaves it no such choice.)
    """
    wanted = [(int(bot_id), int(matches)) for bot_id, matches in counts.items() if matches > 0]
    if not wanted:
        return {}
    table = connection.ops.quote_name(RatingHistory._meta.db_table)
    # Only integers made here go into the text (int() above): nothing a user sent.
    values = ", ".join(f"({bot_id}, {last})" for bot_id, last in wanted)
    query = (
        f"WITH wanted (bot, last) AS (VALUES {values}) "
        "SELECT wanted.bot, h.before, h.after FROM wanted CROSS JOIN LATERAL "
        f"(SELECT seq, before, after FROM {table} WHERE bot_id = wanted.bot "
        "AND seq <= wanted.last AND seq > wanted.last - %s ORDER BY seq DESC LIMIT %s) h "
        "ORDER BY wanted.bot, h.seq"
    )
    found: dict[int, Trend] = {}
    with connection.cursor() as cursor:
        cursor.execute(query, [int(points), int(points)])
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


#: A chart sample: the rating before and after the bot's match, when, and the deviation
#: after it (None where the history did not keep it).
Sample = tuple[float, float, datetime, float | None]


def chart_samples(bot_id: int, numbers: Sequence[int]) -> list[Sample]:
    """The bot's rating changes numbered ``numbers`` (``sample_numbers``), in order.

    One query: each wanted number a LATERAL lookup of one entry of the (bot, seq) index
    (LIMIT 1), so the rows read are the chart's points whatever the history's length. As
    ``seq IN (...)`` the planner read all of the bot's rows by its bot index and kept the
    wanted ones (33,000 rows for the busiest bot at 500,000 matches: issue 47).
    """
    if not numbers:
        return []
    table = connection.ops.quote_name(RatingHistory._meta.db_table)
    query = (
        "SELECT h.before, h.after, h.created_at, h.deviation "
        "FROM unnest(%s::integer[]) AS wanted(seq) CROSS JOIN LATERAL "
        f"(SELECT seq, before, after, created_at, deviation FROM {table} "
        "WHERE bot_id = %s AND seq = wanted.seq LIMIT 1) h ORDER BY h.seq"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, [[int(n) for n in numbers], int(bot_id)])
        return [(before, after, moment, deviation) for before, after, moment, deviation in cursor]
