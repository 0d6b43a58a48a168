"""Issue 47: the bot page reads what it shows, whatever the length of the bot's history.

The site is the plans benchmark's (``bench.service.plans.seed``: 2,400 bots, 150
tournaments) at 20,000 matches, ANALYZEd, so that the planner chooses as on a real site;
its busiest bot has 1,333 matches, seats and rating changes. Every statement of its page
is EXPLAIN ANALYZEd and the rows it reads from the tables that grow with the history
(matches, seats, rating changes: rows returned and rows a filter threw away, over all
loops) must stay within the page's own bounds: the chart's CHART_POINTS samples, the
recent matches, the head-to-head's MATCHES (made 50 here). The chart read as
``seq IN (...)`` read all 1,333 of the bot's rating changes; the head-to-head's seats
as ``match_id IN (...)`` read the whole seat table (a sequential scan).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bench.service import plans
from tests.tournaments.plans import nodes
from tournaments.models import Bot, Match, RatingHistory, Seat
from tournaments.web import bot_views, head_to_head

pytestmark = pytest.mark.django_db

MATCHES = 20_000
#: The head-to-head's matches in this test (its page bound: 500 on the site).
HEAD_TO_HEAD = 50


def rows_read(sql: str) -> int:
    """The rows of the history tables one statement reads (EXPLAIN ANALYZE)."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return sum(
        (
            node["Actual Rows"]
            + node.get("Rows Removed by Filter", 0)
            + node.get("Rows Removed by Index Recheck", 0)
        )
        * node["Actual Loops"]
        for node in nodes(plan[0]["Plan"])
        if node.get("Relation Name") in plans.HISTORY
    )


def page_statements(address: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        answer = Client().get(address)
    assert answer.status_code == 200
    return [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].startswith("SELECT") and any(t in q["sql"] for t in plans.HISTORY)
    ]


def counted_by_hand(bot: Bot) -> dict[int, Counter[str]]:
    """The head-to-head's results from the ORM: the bot's latest HEAD_TO_HEAD done
    matches, each other seat won, drawn or lost by place."""
    ids = list(
        Match.objects.filter(seats__bot=bot, status="done")
        .order_by("-id")
        .values_list("id", flat=True)
        .distinct()[:HEAD_TO_HEAD]
    )
    results: dict[int, Counter[str]] = defaultdict(Counter)
    for match in Match.objects.filter(id__in=ids):
        places: list[Any] = (match.result or {})["places"]
        seats = list(Seat.objects.filter(match=match).values_list("index", "bot_id"))
        mine = next(places[i] for i, who in seats if who == bot.pk)
        for index, other in seats:
            if other != bot.pk:
                theirs = places[index]
                outcome = "won" if mine < theirs else "lost" if mine > theirs else "drawn"
                results[other][outcome] += 1
    return results


def test_the_bot_page_reads_its_bounds_not_the_bots_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plans.seed(MATCHES)
    monkeypatch.setattr(head_to_head, "MATCHES", HEAD_TO_HEAD)
    bot = Bot.objects.filter(game="bigtwo").order_by("id")[0]
    history = RatingHistory.objects.filter(bot=bot).count()
    assert history > 1_300 and Seat.objects.filter(bot=bot).count() == history
    statements = page_statements(reverse("web:bot", args=[bot.pk]))
    read = {sql[:120]: rows_read(sql) for sql in statements}
    # The largest bound: the chart's samples, or the head-to-head's matches and their
    # four seats each. Reading the bot's history (1,333 rows) or a table is far above.
    bound = max(bot_views.CHART_POINTS, HEAD_TO_HEAD * 5)
    assert len(read) >= 5 and max(read.values()) <= bound, read

    shown = {o.bot_id: (o.won, o.drawn, o.lost) for o in head_to_head.opponents(bot)}
    expected = counted_by_hand(bot)
    assert shown and all(
        (expected[o]["won"], expected[o]["drawn"], expected[o]["lost"]) == shown[o] for o in shown
    )
    chart = bot_views.rating_points(Bot.objects.select_related("rating").get(pk=bot.pk))
    assert len(chart[0]) == bot_views.CHART_POINTS + 1
