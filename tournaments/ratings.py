"""Elo ratings and tournament standings, in plain Python (no database): see docs/ratings.md.

A match result is a place per seat (1 is best, equal places are ties). Every result counts
as the pairwise results it implies: for each two seats, the better place scores 1, the
worse 0, and equal places 0.5 each. Two seats held by the same participant are not a pair.

Global ratings move incrementally, match by match; tournament standings fit one Elo per
participant to all of the tournament's pairwise results at once, by maximum likelihood.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

#: Every participant starts here.
START_ELO = 1500.0
#: The most a rating can move in one two-player match; a table of n players shares it
#: among the n - 1 pairs each player is in, so one match moves a rating by at most K.
K_FACTOR = 32.0
#: Elo's logistic scale: a 400-point gap means 10-to-1 odds.
SCALE = 400.0
#: The fit's weak prior (a Gaussian of this many Elo around the field's mean) keeps an
#: unbeaten or winless record finite; it shifts nothing else noticeably.
PRIOR_SD = 1000.0
Z95 = 1.959963984540054

P = TypeVar("P", bound=Hashable)


class RatingError(ValueError):
    """A result that cannot be rated (seats and places disagree, or no places)."""


@dataclass(frozen=True)
class Placing(Generic[P]):
    """One match or game as the ratings see it: who sat in each seat and their places."""

    seats: tuple[P, ...]
    places: tuple[int, ...]


def expected_score(rating: float, opponent: float) -> float:
    """The chance of beating ``opponent`` (a draw counting half), from the rating gap."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / SCALE))


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


def elo_update(
    ratings: Mapping[P, float], placing: Placing[P], k: float = K_FACTOR
) -> dict[P, float]:
    """The new ratings of the participants of one result (others are left out).

    Each player moves by K/(n-1) times the sum, over its opponents at the table, of its
    pairwise score minus the expected one; all rating changes are computed from the
    ratings before the match, so the update is zero-sum.
    """
    before = {p: ratings.get(p, START_ELO) for p in placing.seats}
    share = k / (len(placing.seats) - 1)
    after = dict(before)
    for a, b, score in pairwise(placing.seats, placing.places):
        change = share * (score - expected_score(before[a], before[b]))
        after[a] += change
        after[b] -= change
    return after


def replay_ratings(placings: Iterable[Placing[P]], k: float = K_FACTOR) -> dict[P, float]:
    """Ratings after applying every result in order, from the start value."""
    ratings: dict[P, float] = {}
    for placing in placings:
        ratings.update(elo_update(ratings, placing, k))
    return ratings


@dataclass(frozen=True)
class Standing(Generic[P]):
    """One participant's line in a tournament table.

    ``points``: the sum of its pairwise scores; ``elo`` and its 95% interval
    (``elo_low``, ``elo_high``) come from the maximum-likelihood fit, centred on START_ELO.
    """

    participant: P
    place: int
    points: float
    pairs: int
    matches: int
    elo: float
    elo_low: float
    elo_high: float


@dataclass(frozen=True)
class HeadToHead:
    """What one participant scored against another: points out of pairs played."""

    points: float
    pairs: int


def head_to_head(placings: Iterable[Placing[P]]) -> dict[P, dict[P, HeadToHead]]:
    """table[a][b]: a's pairwise points against b and the number of pairs they played."""
    points: dict[tuple[P, P], float] = defaultdict(float)
    pairs: dict[tuple[P, P], int] = defaultdict(int)
    for placing in placings:
        for a, b, score in pairwise(placing.seats, placing.places):
            points[a, b] += score
            points[b, a] += 1.0 - score
            pairs[a, b] += 1
            pairs[b, a] += 1
    table: dict[P, dict[P, HeadToHead]] = defaultdict(dict)
    for (a, b), count in pairs.items():
        table[a][b] = HeadToHead(points[a, b], count)
    return dict(table)


def standings(
    placings: Iterable[Placing[P]],
    participants: Iterable[P] = (),
    games: Iterable[Placing[P]] | None = None,
) -> list[Standing[P]]:
    """The table, best first: points, shared places on equal points, and the fitted Elo.

    Points count ``placings`` (usually one per match); the Elo is fitted to ``games`` when
    given (the finer results of those matches: each deal of a duplicate match, summed over
    its rotations, or each game; see ``tournaments.standings``), else to ``placings``.
    """
    placings = list(placings)
    everyone = list(dict.fromkeys([*participants, *(p for x in placings for p in x.seats)]))
    points = dict.fromkeys(everyone, 0.0)
    pair_count = dict.fromkeys(everyone, 0)
    match_count = dict.fromkeys(everyone, 0)
    outcomes = []
    for placing in placings:
        for p in set(placing.seats):
            match_count[p] += 1
        for a, b, score in pairwise(placing.seats, placing.places):
            points[a] += score
            points[b] += 1.0 - score
            pair_count[a] += 1
            pair_count[b] += 1
            outcomes.append((a, b, score))
    if games is not None:
        outcomes = [o for g in games for o in pairwise(g.seats, g.places)]
    fit = fit_elo(outcomes, everyone)
    ordered = sorted(everyone, key=lambda p: (-points[p], -fit[p][0]))
    table = []
    for p in ordered:
        place = 1 + sum(points[q] > points[p] for q in everyone)
        elo, half = fit[p]
        table.append(
            Standing(
                p, place, points[p], pair_count[p], match_count[p], elo, elo - half, elo + half
            )
        )
    return table


def fit_elo(
    outcomes: Iterable[tuple[P, P, float]], participants: Iterable[P] = ()
) -> dict[P, tuple[float, float]]:
    """Maximum-likelihood Elo per participant and the half-width of its 95% interval.

    The model is Bradley-Terry on Elo's scale: P(a beats b) = 1 / (1 + 10^((r_b - r_a)/400)),
    a draw counting as half a win each way. Newton's method maximises the log-likelihood
    (plus the weak prior, PRIOR_SD); the ratings average START_ELO. The interval comes from
    the inverse of the negative Hessian at the optimum, with the common shift of all ratings
    (which the games cannot see) projected out: it measures each rating against the field.
    """
    outcomes = list(outcomes)
    names = list(dict.fromkeys([*participants, *(p for a, b, _ in outcomes for p in (a, b))]))
    index = {p: i for i, p in enumerate(names)}
    n = len(names)
    if n == 0:
        return {}
    won: dict[tuple[int, int], float] = defaultdict(float)
    played: dict[tuple[int, int], int] = defaultdict(int)
    for a, b, score in outcomes:
        i, j = sorted((index[a], index[b]))
        won[i, j] += score if index[a] == i else 1.0 - score
        played[i, j] += 1
    r = [0.0] * n
    for _ in range(200):
        gradient, hessian = _gradient_and_hessian(r, won, played)
        step = _solve(hessian, gradient)
        biggest = max(abs(x) for x in step)
        if biggest > SCALE:
            step = [x * SCALE / biggest for x in step]
        r = [x + dx for x, dx in zip(r, step, strict=True)]
        if biggest < 1e-9:
            break
    _, hessian = _gradient_and_hessian(r, won, played)
    covariance = _project_out_shift(_inverse(hessian))
    return {
        p: (START_ELO + r[i], Z95 * math.sqrt(max(covariance[i][i], 0.0))) for p, i in index.items()
    }


def _gradient_and_hessian(
    r: list[float], won: Mapping[tuple[int, int], float], played: Mapping[tuple[int, int], int]
) -> tuple[list[float], list[list[float]]]:
    """The log-posterior's gradient and its negative Hessian (positive definite)."""
    n = len(r)
    s = math.log(10.0) / SCALE
    precision = 1.0 / PRIOR_SD**2
    gradient = [-precision * x for x in r]
    hessian = [[precision if i == j else 0.0 for j in range(n)] for i in range(n)]
    for (i, j), games in played.items():
        p = 1.0 / (1.0 + math.exp(-s * (r[i] - r[j])))
        g = s * (won[i, j] - games * p)
        gradient[i] += g
        gradient[j] -= g
        h = s * s * games * p * (1.0 - p)
        hessian[i][i] += h
        hessian[j][j] += h
        hessian[i][j] -= h
        hessian[j][i] -= h
    return gradient, hessian


def _project_out_shift(covariance: list[list[float]]) -> list[list[float]]:
    """(I - 11'/n) C (I - 11'/n): the covariance of ratings measured from their mean."""
    n = len(covariance)
    row_mean = [sum(row) / n for row in covariance]
    col_mean = [sum(covariance[i][j] for i in range(n)) / n for j in range(n)]
    total_mean = sum(row_mean) / n
    return [
        [covariance[i][j] - row_mean[i] - col_mean[j] + total_mean for j in range(n)]
        for i in range(n)
    ]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix @ x = vector (Gauss-Jordan with partial pivoting)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    _eliminate(rows, n)
    return [rows[i][n] for i in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    rows = [[*matrix[i], *(1.0 if i == j else 0.0 for j in range(n))] for i in range(n)]
    _eliminate(rows, n)
    return [row[n:] for row in rows]


def _eliminate(rows: list[list[float]], n: int) -> None:
    for col in range(n):
        pivot = max(range(col, n), key=lambda i: abs(rows[i][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for i in range(n):
            if i != col and rows[i][col] != 0.0:
                factor = rows[i][col]
                rows[i] = [x - factor * y for x, y in zip(rows[i], rows[col], strict=True)]
