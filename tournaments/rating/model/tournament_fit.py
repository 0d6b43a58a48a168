"""Tournament standings, a view of the results (``results``) in plain Python (no database):
see docs/ratings.md.

Tournament standings fit one Elo per participant to all of the tournament's pairwise
results at once, by maximum likelihood (global ratings, ``global_rating``, move match by
match instead); ``elo_update`` is the classic Elo step of one result.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic

from tournaments.rating.model import linear
from tournaments.rating.model.results import (
    ELO_MAX,
    ELO_MIN,
    SCALE,
    START_ELO,
    Z95,
    P,
    Placing,
    pairwise,
)

#: The most a rating can move in one two-player match; a table of n players shares it
#: among the n - 1 pairs each player is in, so one match moves a rating by at most K.
K_FACTOR = 32.0
#: The fit's weak prior (a Gaussian of this many Elo around the field's mean) keeps an
#: unbeaten or winless record finite; it shifts nothing else noticeably.
PRIOR_SD = 1000.0
#: A bot with fewer comparison units than this in a fit is labelled provisional.
PROVISIONAL_UNITS = 10
#: Below this many units the model-based variance floors the sandwich fully; above, by
#: FLOOR_UNITS / units (see ``_floor_weight``).
FLOOR_UNITS = 10
#: A record with fewer pairwise wins (or losses) than this keeps the whole model floor.
FLOOR_RARE = 3.0
#: Intervals reach at most this far from the estimate (and stay in ELO_MIN..ELO_MAX).
CLIP_HALF = 800.0


def expected_score(rating: float, opponent: float) -> float:
    """The chance of beating ``opponent`` (a draw counting half), from the rating gap."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / SCALE))


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
    (``elo_low``, ``elo_high``) come from the maximum-likelihood fit, centred on START_ELO;
    ``units``: the comparison units (games or duplicate deals) it took part in;
    ``provisional``: fewer than PROVISIONAL_UNITS of them, so the interval is a rough guide.
    """

    participant: P
    place: int
    points: float
    pairs: int
    matches: int
    elo: float
    elo_low: float
    elo_high: float
    units: int = 0
    provisional: bool = True


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
    given (the comparison units of those matches: each deal of a duplicate match, summed
    over its rotations, or each game; see ``tournaments.rating.model.units``), else to ``placings``.
    """
    placings = list(placings)
    everyone = list(dict.fromkeys([*participants, *(p for x in placings for p in x.seats)]))
    points = dict.fromkeys(everyone, 0.0)
    pair_count = dict.fromkeys(everyone, 0)
    match_count = dict.fromkeys(everyone, 0)
    for placing in placings:
        for p in set(placing.seats):
            match_count[p] += 1
        for a, b, score in pairwise(placing.seats, placing.places):
            points[a] += score
            points[b] += 1.0 - score
            pair_count[a] += 1
            pair_count[b] += 1
    fit = fit_units(placings if games is None else games, everyone)
    ordered = sorted(everyone, key=lambda p: (-points[p], -fit[p].elo))
    table = []
    for p in ordered:
        place = 1 + sum(points[q] > points[p] for q in everyone)
        f = fit[p]
        table.append(
            Standing(
                p,
                place,
                points[p],
                pair_count[p],
                match_count[p],
                f.elo,
                f.low,
                f.high,
                f.units,
                f.provisional,
            )
        )
    return table


@dataclass(frozen=True)
class Fit:
    """One participant's fitted Elo, its 95% interval (clipped) and its evidence."""

    elo: float
    low: float
    high: float
    units: int
    provisional: bool

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0


def fit_elo(
    outcomes: Iterable[tuple[P, P, float]], participants: Iterable[P] = ()
) -> dict[P, tuple[float, float]]:
    """Elo and the half-width of its 95% interval, each pairwise outcome its own unit."""
    units = [
        Placing((a, b), (1, 1) if score == 0.5 else (1, 2) if score > 0.5 else (2, 1))
        for a, b, score in outcomes
    ]
    return {p: (f.elo, f.half_width) for p, f in fit_units(units, participants).items()}


def fit_units(
    units: Iterable[Placing[P]], participants: Iterable[P] = (), *, robust: bool = True
) -> dict[P, Fit]:
    """Maximum-likelihood Elo per participant with an honest 95% interval.

    The model is Bradley-Terry on Elo's scale: P(a beats b) = 1 / (1 + 10^((r_b - r_a)/400)),
    a draw counting as half a win each way, over the pairwise results of each unit (one
    game, or one duplicate deal). Newton's method maximises the log-likelihood (plus the
    weak prior, PRIOR_SD); the ratings average START_ELO.

    The pairwise results of one unit are not independent (a 6-player placing is 15 pairs
    decided together; a duplicate deal is often a draw, far less variable than a coin), so
    the covariance is the cluster-robust sandwich H^-1 (sum over units of g_u g_u') H^-1
    with the unit as the cluster, not the model's H^-1. With few units, or a record with
    next to no wins or losses, the sandwich knows little, so the model's variance is a
    floor there (see ``_floor_weight``). The common shift of all ratings (which games
    cannot see) is projected out: the interval places a bot against the field.
    ``robust=False`` gives the model's interval alone (the old one: bench.ratings.calibration).
    """
    counted: Counter[tuple[tuple[P, ...], tuple[int, ...]]] = Counter(
        (u.seats, u.places) for u in units
    )
    names = list(dict.fromkeys([*participants, *(p for seats, _ in counted for p in seats)]))
    index = {p: i for i, p in enumerate(names)}
    if not names:
        return {}
    patterns = [
        (count, [(index[a], index[b], y) for a, b, y in pairwise(seats, places)])
        for (seats, places), count in counted.items()
    ]
    r = _newton(len(names), patterns)
    evidence = _evidence(len(names), patterns)
    _, hessian = _gradient_and_hessian(r, *_totals(patterns))
    model = linear.inverse(hessian)
    sandwich = _sandwich_diagonal(model, _meat(r, patterns)) if robust else None
    model = _project_out_shift(model)
    # The sandwich is measured from the units (the clusters), so Student's t with one
    # degree of freedom fewer than there are units; the floor is the model's, known in
    # form, so the normal quantile.
    quantile = t95(sum(count for count, _ in patterns) - 1)
    fits = {}
    for p, i in index.items():
        units_i, points_i, pairs_i = evidence[i]
        weight = _floor_weight(units_i, points_i, pairs_i) if robust else 1.0
        floor = Z95 * math.sqrt(max(model[i][i] * weight, 0.0))
        measured = quantile * math.sqrt(max(sandwich[i], 0.0)) if sandwich else 0.0
        fits[p] = _clipped(START_ELO + r[i], max(measured, floor), units_i)
    return fits


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom.

    A variance measured from few clusters is itself uncertain: from G units the sandwich
    has about G - 1 degrees of freedom, and 1.96 would under-cover (a 6-player tournament
    of 6 bots playing 5 deals is 5 units in all: t = 2.78).
    Cornish-Fisher expansion around the normal quantile (within 0.3% from 3 degrees of
    freedom; 1 and 2 are exact); 1.96 in the limit.
    """
    if df <= 0:
        return T95_EXACT[1]
    if df in T95_EXACT:
        return T95_EXACT[df]
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * df**4)
    )


#: Exact quantiles where the expansion is poor.
T95_EXACT = {1: 12.706204736174707, 2: 4.302652729749464}


def _clipped(elo: float, half: float, units: int) -> Fit:
    """The interval at most CLIP_HALF either side, everything within [ELO_MIN, ELO_MAX]."""
    half = min(half, CLIP_HALF)
    elo = min(max(elo, ELO_MIN), ELO_MAX)
    low, high = max(elo - half, ELO_MIN), min(elo + half, ELO_MAX)
    return Fit(elo, low, high, units, units < PROVISIONAL_UNITS)


def _floor_weight(units: int, points: float, pairs: int) -> float:
    """How much of the model variance an interval keeps at least (0 to 1).

    All of it for a record with fewer than FLOOR_RARE wins or losses (counted pairwise,
    a draw half): the sandwich sees hardly any variation there and would claim certainty
    about a bot that has never lost. Otherwise FLOOR_UNITS / units, capped at 1: the
    sandwich is unreliable on few clusters, and soon trustworthy on many.
    """
    if min(points, pairs - points) < FLOOR_RARE:
        return 1.0
    return min(1.0, FLOOR_UNITS / max(units, 1))


Pattern = tuple[int, list[tuple[int, int, float]]]


def _totals(
    patterns: Sequence[Pattern],
) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], int]]:
    """Pairwise points won (by the lower index) and pairs played, per pair of indices."""
    won: dict[tuple[int, int], float] = defaultdict(float)
    played: dict[tuple[int, int], int] = defaultdict(int)
    for count, pairs in patterns:
        for i, j, y in pairs:
            a, b = (i, j) if i < j else (j, i)
            won[a, b] += count * (y if i == a else 1.0 - y)
            played[a, b] += count
    return won, played


def _newton(n: int, patterns: Sequence[Pattern]) -> list[float]:
    """The ratings (around 0) that maximise the log-posterior."""
    won, played = _totals(patterns)
    r = [0.0] * n
    for _ in range(200):
        gradient, hessian = _gradient_and_hessian(r, won, played)
        step = linear.solve(hessian, gradient)
        biggest = max(abs(x) for x in step)
        if biggest > SCALE:
            step = [x * SCALE / biggest for x in step]
        r = [x + dx for x, dx in zip(r, step, strict=True)]
        if biggest < 1e-9:
            break
    return r


def _evidence(n: int, patterns: Sequence[Pattern]) -> list[tuple[int, float, int]]:
    """Per index: units taken part in, pairwise points, pairwise results."""
    units = [0] * n
    points = [0.0] * n
    pairs = [0] * n
    for count, unit in patterns:
        for k in {x for i, j, _ in unit for x in (i, j)}:
            units[k] += count
        for i, j, y in unit:
            points[i] += count * y
            points[j] += count * (1.0 - y)
            pairs[i] += count
            pairs[j] += count
    return list(zip(units, points, pairs, strict=True))


def _meat(r: Sequence[float], patterns: Sequence[Pattern]) -> list[list[float]]:
    """Sum over units of the outer product of each unit's score (log-likelihood gradient),
    times U / (U - 1), the usual small-sample correction for U clusters."""
    n = len(r)
    s = math.log(10.0) / SCALE
    meat = [[0.0] * n for _ in range(n)]
    total = 0
    for count, unit in patterns:
        g: dict[int, float] = defaultdict(float)
        for i, j, y in unit:
            d = s * (y - 1.0 / (1.0 + math.exp(-s * (r[i] - r[j]))))
            g[i] += d
            g[j] -= d
        for i, gi in g.items():
            row = meat[i]
            for j, gj in g.items():
                row[j] += count * gi * gj
        total += count
    correction = total / (total - 1) if total > 1 else 1.0
    return [[x * correction for x in row] for row in meat]


def _sandwich_diagonal(bread: list[list[float]], meat: list[list[float]]) -> list[float]:
    """The diagonal of (I - 11'/n) V (I - 11'/n) with V = bread @ meat @ bread.

    Only the diagonal is shown, so one matrix product (C = bread @ meat) is enough:
    V_ii = sum_k C_ik bread_ki, and V's row means are C @ (bread @ 1) / n.
    """
    n = len(bread)
    columns = list(zip(*meat, strict=True))
    product = [
        [sum(x * y for x, y in zip(row, col, strict=True)) for col in columns] for row in bread
    ]
    diagonal = [sum(c * a for c, a in zip(product[i], bread[i], strict=True)) for i in range(n)]
    bread_sums = [sum(row) for row in bread]
    row_means = [sum(c * s for c, s in zip(row, bread_sums, strict=True)) / n for row in product]
    total_mean = sum(row_means) / n
    return [diagonal[i] - 2.0 * row_means[i] + total_mean for i in range(n)]


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
