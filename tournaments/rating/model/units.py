"""A match's comparison units, stored compactly with its result (see docs/ratings.md).

A unit is what the tournament fit compares: one game of a match without duplicate
deals, or one deal of a duplicate match (each bot's scores summed over the deal's seat
rotations, placed by those sums). A unit is written as the place of each of the match's
seats (bot index order), one character a place; units are separated by spaces:
"12 21 11" is three two-seat units, a win, a loss and a draw for seat 0. Derived once
when the result is stored (and, for older matches, by a migration from their records),
so standings never re-read the games or the replay.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

from judge.engine import Result
from tournaments.rating.model.results import Placing

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"

P = TypeVar("P", bound=Hashable)


def match_units(
    seat_count: int,
    result: Mapping[str, Any],
    *,
    duplicate: bool,
    deals: int,
) -> list[tuple[int, ...]]:
    """The places of each unit of a match, indexed by the match's seat (bot index).

    ``result`` is the stored match result: its ``games`` list each game's ``seating``
    (``seating[seat]`` is the bot index sitting there) and ``result`` (scores and places
    per seat). A duplicate match plays every deal once per rotation; its games are grouped
    by ``deal`` (results stored before games carried it fall back on the referee's order:
    game i is deal i mod ``deals``). A match with no games recorded is one unit, its places.
    """
    games = result.get("games") or []
    if not games:
        return [tuple(result["places"])]
    if not duplicate:
        units = []
        for game in games:
            places = [0] * seat_count
            for seat, bot in enumerate(game["seating"]):
                places[bot] = game["result"]["places"][seat]
            units.append(tuple(places))
        return units
    sums: dict[int, list[float]] = {}
    for position, game in enumerate(games):
        deal = game.get("deal", position % max(deals, 1))
        totals = sums.setdefault(deal, [0.0] * seat_count)
        for seat, bot in enumerate(game["seating"]):
            totals[bot] += game["result"]["scores"][seat]
    # Rounded so that sums of decimal scores that should be equal tie.
    return [
        tuple(Result.from_scores([round(t, 9) for t in totals]).places)
        for _, totals in sorted(sums.items())
    ]


def encode(units: Sequence[Sequence[int]]) -> str:
    """The stored form: one character per place, units separated by spaces."""
    return " ".join("".join(ALPHABET[place] for place in unit) for unit in units)


def decode(text: str) -> list[tuple[int, ...]]:
    return [tuple(ALPHABET.index(c) for c in word) for word in text.split()]


def placings(seats: Sequence[P], text: str) -> list[Placing[P]]:
    """The stored units of a match as placings of its participants (``seats[bot]``)."""
    who = tuple(seats)
    return [Placing(who, places) for places in decode(text)]


def stored_units(match: Any) -> str:
    """The encoded units of a finished match object (result, duplicate and games fields)."""
    seats = len(match.result["places"])
    return encode(match_units(seats, match.result, duplicate=match.duplicate, deals=match.games))


def fill_missing(match_model: Any, batch: int = 500) -> int:
    """Store the units of every finished match that has none, from its stored result.

    ``match_model`` is the Match model (the migration passes its historical one). Reads
    only the fields the units need, in batches, so a large history fits in little memory.
    Returns how many matches were filled.
    """
    filled = 0
    missing = match_model.objects.filter(status="done", units="").exclude(result=None)
    while True:
        chunk = list(missing.only("id", "result", "duplicate", "games").order_by("id")[:batch])
        if not chunk:
            return filled
        for match in chunk:
            match.units = stored_units(match)
        match_model.objects.bulk_update(chunk, ["units"])
        filled += len(chunk)
