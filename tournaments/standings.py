"""A tournament's table from its stored matches: points, places, head-to-head and Elo.

Points and the head-to-head table count each match once (its places over all its games);
the Elo fit uses every game of every match, as the pairwise results it implies.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    per_game = []
    for match in matches:
        seats = tuple(seat.version_id for seat in match.seats.all())
        result = match.result or {}
        per_match.append(ratings.Placing(seats, tuple(result["places"])))
        for game in result.get("games", []):
            # seating[seat] is the match's bot index sitting there in that game
            sat = tuple(seats[bot] for bot in game["seating"])
            per_game.append(ratings.Placing(sat, tuple(game["result"]["places"])))
    rows = ratings.standings(per_match, versions, games=per_game)
    return Table(rows, ratings.head_to_head(per_match), versions, len(matches))
