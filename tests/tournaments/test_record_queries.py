"""Issue 32, item 1: recording a result costs the same at any history size. Every SQL
statement lease.finish_match runs for a rated result (the match, its seats, the
ratings, their history and records, the version's "first rated" flag) is planned by
PostgreSQL on an index with a bound: none reads a table that grows with play whole.

The history is seeded big enough (thousands of matches, ANALYZEd) that the planner
chooses as it would on a real site, not the sequential scan it takes for a tiny table.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.tournaments.plans import tables_read_whole
from tournaments.models import (
    Bot,
    BotVersion,
    Match,
    Rating,
    RatingHistory,
    RatingRecord,
    Seat,
)
from tournaments.play import lease
from tournaments.rating.stored import recompute

pytestmark = pytest.mark.django_db

#: The tables that grow with play: no statement of a result may read one whole.
GROWING = (
    *("tournaments_match", "tournaments_seat", "tournaments_ratinghistory"),
    *("tournaments_ratingrecord", "tournaments_rating", "tournaments_botversion"),
)
BOTS = 1000
MATCHES = 4000


def seed_history() -> list[BotVersion]:
    """BOTS bots of two versions each (the first ones rated), MATCHES rated two-seat
    matches between first versions (half of them the first bot's, a popular one), with
    seats, history, records and ratings."""
    bots = Bot.objects.bulk_create(Bot(game="oceans11", name=f"b{i}") for i in range(BOTS))
    versions = BotVersion.objects.bulk_create(
        BotVersion(
            bot=bot,
            number=n,
            content_hash=f"{bot.pk}-{n}",
            status=BotVersion.Status.ACCEPTED,
            ever_rated=n == 1,
        )
        for bot in bots
        for n in (1, 2)
    )
    first = versions[::2]
    matches = Match.objects.bulk_create(
        Match(
            game="oceans11",
            status=Match.Status.DONE,
            rated=True,
            rating_seq=i + 1,
            result={"scores": [1, 0], "places": [1, 2], "games": []},
        )
        for i in range(MATCHES)
    )
    seated = [i % 2 * (i % BOTS) for i in range(MATCHES)]  # the first bot in every other
    pairs = [(first[a], first[(a + 1 + i * 7 % (BOTS - 1)) % BOTS]) for i, a in enumerate(seated)]
    Seat.objects.bulk_create(
        Seat(match=m, index=s, version=v)
        for m, pair in zip(matches, pairs, strict=True)
        for s, v in enumerate(pair)
    )
    RatingHistory.objects.bulk_create(
        RatingHistory(bot_id=v.bot_id, match=m, game="oceans11", seq=i, before=1500, after=1500)
        for i, (m, pair) in enumerate(zip(matches, pairs, strict=True))
        for v in pair
    )
    met = {(a.bot_id, b) for x, y in pairs for a, b in ((x, y), (y, x)) if a != b}
    RatingRecord.objects.bulk_create(
        RatingRecord(bot_id=bot, opponent=v, results=4.0, score=2.0, seen=1500.0) for bot, v in met
    )
    Rating.objects.bulk_create(Rating(bot=bot, game="oceans11", elo=1500.0) for bot in bots)
    with connection.cursor() as cursor:
        for table in GROWING:
            cursor.execute(f'ANALYZE "{table}"')
    return versions


def whole_reads(sql: str, params: Sequence[Any] = ()) -> list[str]:
    """The growing tables the planner reads whole for ``sql``: a sequential scan, or an
    index scan with no condition (every entry of the index)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params or None)
        plan = cursor.fetchone()[0]
    return tables_read_whole(plan, GROWING)


def planned(sql: str) -> bool:
    """Whether EXPLAIN applies to the statement (not a savepoint's)."""
    return sql.split(None, 1)[0].upper() in ("SELECT", "INSERT", "UPDATE", "DELETE")


def running_match(versions: list[BotVersion]) -> Match:
    """A claimed rated match of these versions (attempt 1)."""
    match = Match.objects.create(
        game="oceans11", rated=True, status=Match.Status.RUNNING, attempt=1
    )
    Seat.objects.bulk_create(Seat(match=match, index=i, version=v) for i, v in enumerate(versions))
    return match


def test_every_statement_of_recording_a_result_is_on_an_index() -> None:
    versions = seed_history()
    # A rated version against one never rated: both the flag's read and its write run.
    match = running_match([versions[0], versions[3]])
    outcome = {"scores": [1, 0], "places": [1, 2], "games": [], "logs": ["", ""]}
    with CaptureQueriesContext(connection) as captured:
        assert lease.finish_match(match.pk, 1, outcome)
    statements = [q["sql"] for q in captured.captured_queries if planned(q["sql"])]
    assert len(statements) >= 10  # the match, seats, ratings, flags, history, records
    scans = {sql[:300]: found for sql in statements if (found := whole_reads(sql))}
    assert scans == {}
    assert not versions[1].ever_rated and versions[3].number == 2  # it was never rated
    assert flagged() == set(Seat.objects.values_list("version_id", flat=True))


def test_the_check_sees_the_join_the_flag_replaced() -> None:
    """The join of seats and matches that found a version's first rated match (issue 32's
    slowest statement) is what this test refuses: it reads the whole match table."""
    versions = seed_history()
    joined = Seat.objects.filter(
        version__in=versions[:2], match__status=Match.Status.DONE, match__rating_seq__isnull=False
    ).values_list("version_id", flat=True)
    assert "tournaments_match" in whole_reads(*joined.query.sql_with_params())


def test_the_flags_follow_the_history_when_ratings_are_recomputed() -> None:
    seed_history()
    unrated = Match.objects.create(game="oceans11", status=Match.Status.DONE, rated=False)
    second = BotVersion.objects.filter(number=2).first()
    assert second is not None
    Seat.objects.create(match=unrated, index=0, version=second)
    BotVersion.objects.update(ever_rated=False)
    seated = set(Seat.objects.exclude(match=unrated).values_list("version_id", flat=True))
    assert recompute.mark_rated_versions() == len(seated)
    assert flagged() == seated and second.pk not in seated


def flagged() -> set[int]:
    """The versions whose first rated match was applied."""
    return set(BotVersion.objects.filter(ever_rated=True).values_list("pk", flat=True))


def test_recompute_reports_a_flag_the_history_does_not_have_and_write_restores_it() -> None:
    a, b = (Bot.objects.create(game="oceans11", name=name) for name in "ab")
    a1, a2, b1 = (
        BotVersion.objects.create(bot=bot, number=n, content_hash=f"{bot.name}{n}")
        for bot, n in ((a, 1), (a, 2), (b, 1))
    )
    outcome = {"scores": [1, 0], "places": [1, 2], "games": [], "logs": ["", ""]}
    for pair in ([a1, b1], [a2, b1]):
        assert lease.finish_match(running_match(pair).pk, 1, outcome)
    assert flagged() == {a1.pk, a2.pk, b1.pk}
    report = recompute.recompute()
    assert (report.differences, report.flag_differences) == ({}, set())
    BotVersion.objects.filter(pk=a2.pk).update(ever_rated=False)
    assert recompute.recompute().flag_differences == {a2.pk}
    with pytest.raises(CommandError, match="differ"):
        call_command("recompute_ratings", stdout=io.StringIO())
    recompute.recompute_and_store()
    assert flagged() == {a1.pk, a2.pk, b1.pk}
