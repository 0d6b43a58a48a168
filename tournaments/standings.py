"""A tournament's table from its stored matches: points, places, head-to-head and Elo.

Points and the head-to-head table count each match once (its places over all its games;
in a duplicate match those totals already cover every rotation of every deal, so they
compare the bots on the same cards). The Elo fit uses more evidence, as the pairwise
results it implies: every deal of a duplicate match (each bot's scores summed over that
deal's rotations) and every game of a match without duplicate deals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judge.engine import Result
from tournaments import ratings
from tournaments.models import BotVersion, Match, Tournament


@dataclass(frozen=True)
class Table:
    """Standings best first, head-to-head by version id, and the versions by id."""

    rows: list[ratings.Standing[int]]
    head_to_head: dict[int, dict[int, ratings.HeadToHead]]
    versions: dict[int, BotVersion]
    matches_done: int


def tournament_table(tournament: Tournament) -> Table:
    versions = {v.pk: v for v in tournament.participants.select_related("bot")}
    matches = list(
        tournament.matches.filter(status=Match.Status.DONE)
        .prefetch_related("seats")
        .order_by("number")
    )
    per_match = []
    per_comparison = []
    for match in matches:
        seats = tuple(seat.version_id for seat in match.seats.all())
        result = match.result or {}
        per_match.append(ratings.Placing(seats, tuple(result["places"])))
        games = result.get("games", [])
        per_comparison += fit_placings(seats, games, duplicate=match.duplicate, deals=match.games)
    rows = ratings.standings(per_match, versions, games=per_comparison)
    return Table(rows, ratings.head_to_head(per_match), versions, len(matches))


def fit_placings(
    seats: Sequence[int], games: Sequence[Mapping[str, Any]], *, duplicate: bool, deals: int
) -> list[ratings.Placing[int]]:
    """The results of one match that the Elo fit compares: per deal if duplicate, else per game.

    ``seats`` are the match's participants (bot index -> participant); each game's
    ``seating[seat]`` is the bot index sitting there. A duplicate match plays every deal
    once per seat rotation, and a deal's games split evenly whenever the cards decide
    them; so the whole duplicate set of a deal is one result: each bot's scores summed
    over the deal's rotations, placed by those sums, and the bot that did better on the
    same cards wins it. Results stored before games carried their deal number fall back
    on the referee's order (all deals in one seating, then all in the next): game i is
    deal i mod ``deals``.
    """
    if not duplicate:
        return [
            ratings.Placing(
                tuple(seats[bot] for bot in game["seating"]), tuple(game["result"]["places"])
            )
            for game in games
        ]
    sums: dict[int, list[float]] = {}
    for position, game in enumerate(games):
        deal = game.get("deal", position % max(deals, 1))
        totals = sums.setdefault(deal, [0.0] * len(seats))
        for seat, bot in enumerate(game["seating"]):
            totals[bot] += game["result"]["scores"][seat]
    return [
        # Rounded so that sums of decimal scores that should be equal tie.
        ratings.Placing(tuple(seats), Result.from_scores([round(t, 9) for t in totals]).places)
        for _, totals in sorted(sums.items())
    ]
