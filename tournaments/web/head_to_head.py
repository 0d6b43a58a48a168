"""A bot's record against each opponent it has met, for its page: "is it better than B?".

Two answers side by side. The results: each finished match counts once per opponent at
its table, won when the bot was placed ahead of it, drawn when level, lost when behind
(as a tournament's head-to-head table counts). And the rating difference: this bot's
global rating less the opponent's, with the joint 95% interval and the chance that this
bot is the stronger (``rating.stored.field_store``: both ratings' uncertainty, and their
opponents', taken together). Bounded: the bot's latest ``MATCHES`` finished matches, the
``SHOWN`` opponents met most often, fitted together (the rest of the field held where
each record last met it: a whole field's refit takes seconds on a big site).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.db import connection
from django.db.models import OuterRef, Q, Subquery

from tournaments.models import Bot, Match, Seat
from tournaments.rating.model import field
from tournaments.rating.stored import field_store
from tournaments.web import text

#: The latest finished matches of the bot whose results are counted.
MATCHES = 500
#: At most this many opponents are listed (those met most often).
SHOWN = 12


@dataclass(frozen=True)
class Opponent:
    """One opponent's line: who, the results against it, and the rating difference."""

    bot_id: int
    name: str
    won: int
    drawn: int
    lost: int
    difference: field.Difference | None

    @property
    def met(self) -> int:
        return self.won + self.drawn + self.lost

    @property
    def difference_text(self) -> str:
        """ "+35 [-20, +90]", or "" when either bot is unrated."""
        found = self.difference
        if found is None:
            return ""
        low, high = text.signed_whole(found.low), text.signed_whole(found.high)
        return f"{text.signed_whole(found.estimate)} [{low}, {high}]"

    @property
    def stronger_text(self) -> str:
        """The chance this bot is the stronger: "87%"."""
        found = self.difference
        return "" if found is None else f"{found.probability * 100:.0f}%"


def opponents(bot: Bot) -> list[Opponent]:
    """The opponents ``bot`` met most often in its latest finished matches, most met
    first, each with its results and (when both are rated) the rating difference."""
    results, names = _results(bot)
    chosen = sorted(results, key=lambda other: (-sum(results[other].values()), names[other]))
    chosen = chosen[:SHOWN]
    differences = _differences(bot, chosen)
    return [
        Opponent(
            bot_id=other,
            name=names[other],
            won=results[other]["won"],
            drawn=results[other]["drawn"],
            lost=results[other]["lost"],
            difference=differences.get(other),
        )
        for other in chosen
    ]


def _results(bot: Bot) -> tuple[dict[int, Counter[str]], dict[int, str]]:
    """Per opponent bot id: won, drawn, lost; and the opponents' names. Two queries."""
    # Each of the bot's seats, newest first, its match checked by its key (a subquery per
    # seat): one walk of the (bot, match) index that stops at MATCHES. As a join the
    # planner read the whole match table at 5,000 and 500,000 matches (issue 47).
    shown = (
        Match.objects.filter(pk=OuterRef("match_id"), status=Match.Status.DONE)
        .filter(Q(duel__isnull=True) | Q(duel__owner__isnull=True))  # a person's duel: theirs
        .values("pk")[:1]
    )
    match_ids = list(
        Seat.objects.filter(bot=bot)
        .annotate(shown=Subquery(shown))
        .filter(shown__isnull=False)
        .order_by("-match_id")
        .values_list("match_id", flat=True)[:MATCHES]
    )
    places: dict[int, list[int]] = {}
    seats: dict[int, list[tuple[int, int]]] = defaultdict(list)
    names: dict[int, str] = {}
    for match_id, placed, index, bot_id, name in _tables(match_ids):
        places[match_id] = placed or []
        seats[match_id].append((index, bot_id))
        names[bot_id] = name
    results: dict[int, Counter[str]] = defaultdict(Counter)
    for match_id, seated in seats.items():
        _count(bot.pk, seated, places[match_id], results)
    return results, names


def _tables(match_ids: list[int]) -> list[tuple[int, list[int] | None, int, int, str]]:
    """Each seat of these matches: its match, the match's places, the seat's index, bot
    and bot name. One query (none for no matches).

    Each match a LATERAL lookup of its row by its key and of its seats by the (match,
    index) key (``OFFSET 0`` keeps each a lookup per match: PostgreSQL may not fold such
    a subquery into a join), so the rows read are the matches' own whatever the history's
    length. As ``match_id IN (...)`` the planner read the whole seat table at 5,000
    matches (a sequential scan, cheaper there than 500 lookups) and its index above: a
    different plan by the site's size (issue 47).
    """
    if not match_ids:
        return []
    match, seat = (connection.ops.quote_name(m._meta.db_table) for m in (Match, Seat))
    bot = connection.ops.quote_name(Bot._meta.db_table)
    query = (
        "SELECT wanted.id, m.places, s.index, s.bot_id, b.name "
        "FROM unnest(%s::bigint[]) AS wanted(id) "
        f"CROSS JOIN LATERAL (SELECT result -> 'places' AS places FROM {match} "
        "WHERE id = wanted.id OFFSET 0) m "
        f"CROSS JOIN LATERAL (SELECT index, bot_id FROM {seat} "
        "WHERE match_id = wanted.id OFFSET 0) s "
        f"JOIN {bot} b ON b.id = s.bot_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, [[int(i) for i in match_ids]])
        return [
            (match_id, json.loads(placed) if isinstance(placed, str) else placed, *rest)
            for match_id, placed, *rest in cursor
        ]


def _count(
    me: int, seated: list[tuple[int, int]], places: list[int], results: dict[int, Counter[str]]
) -> None:
    """Add one match's outcomes against each other bot at its table."""
    mine = [places[i] for i, who in seated if who == me and i < len(places)]
    if not mine:
        return
    for index, other in seated:
        if other == me or index >= len(places):
            continue
        theirs = places[index]
        outcome = "won" if mine[0] < theirs else "lost" if mine[0] > theirs else "drawn"
        results[other][outcome] += 1


def _differences(bot: Bot, others: list[int]) -> dict[int, field.Difference]:
    """The rating difference against each of ``others`` that is rated (one field load)."""
    if not others or not hasattr(bot, "rating"):
        return {}
    whole = field_store.game_field(bot.game, bots=[bot.pk, *others])  # bounded: SHOWN + 1
    if bot.pk not in whole.elo:
        return {}
    return {other: whole.difference(bot.pk, other) for other in others if other in whole.elo}
