"""The data every rating reads: results as placings and the pairwise results they imply.

Plain Python (no database). A match result is a place per seat (1 is best, equal places
are ties), stored per comparison unit (one game, or one duplicate deal summed over its
rotations: ``units``). Every placing counts as the pairwise results it implies: for each
two seats, the better place scores 1, the worse 0, and equal places 0.5 each; two seats
held by the same participant are not a pair. A bot's pairwise results against one
opponent version, summed, are its ``Record``.

The estimates are views of these results, on one Elo scale (docs/ratings.md):
``tournament_fit`` (one Elo per entrant from a tournament's placings), ``global_rating``
(each bot's state, ``skill.Skill``, updated match by match from its records) and the
field view (``field``: the whole field's records refitted together).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

#: Every participant starts here.
START_ELO = 1500.0
#: Elo's logistic scale: a 400-point gap means 10-to-1 odds.
SCALE = 400.0
Z95 = 1.959963984540054
#: Every rating and interval shown stays in this range.
ELO_MIN = 0.0
ELO_MAX = 3000.0

P = TypeVar("P", bound=Hashable)


class RatingError(ValueError):
    """A result that cannot be rated (seats and places disagree, or no places)."""


@dataclass(frozen=True)
class Placing(Generic[P]):
    """One match or game as the ratings see it: who sat in each seat and their places."""

    seats: tuple[P, ...]
    places: tuple[int, ...]


def pairwise(seats: Sequence[P], places: Sequence[int]) -> list[tuple[P, P, float]]:
    """Each pair of different participants with the first one's score (1, 0.5 or 0)."""
    if len(seats) != len(places) or len(seats) < 2:
        raise RatingError(f"need one place per seat for two or more seats, got {places!r}")
    pairs = []
    for i in range(len(seats)):
        for j in range(i + 1, len(seats)):
            if seats[i] == seats[j]:
                continue
            score = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
            pairs.append((seats[i], seats[j], score))
    return pairs


class Record(NamedTuple):
    """A bot's pairwise results against one opponent: how many (``results``; fewer once a
    new version comes, see ``global_rating.new_version``), its score in them (``score``:
    1 a win, 1/2 a draw) and the opponent's rating when they last met (``seen``)."""

    results: float
    score: float
    seen: float
