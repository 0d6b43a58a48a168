"""The field view's dispersion, measured from the units themselves (issue 30).

Each bot's stored dispersion (``global_rating.Skill.dispersion``) is measured as it is
rated: per unit, the squared score at the ratings just fitted against the model's
expected value less the unit's leverage, the leverage taken with every other rating
fixed (h^2 / H for the bot, h_j^2 / H_j per opponent). In a sparse field (50 bots of a
ladder, a handful of units each) the fitted ratings are far less pinned than that, so the
leverage is larger than counted and the measured dispersion too small: at 6 seats it
measured 1.54-1.83 where the results' own was 2.00, at 4 seats 1.20-1.35 against 1.41
(docs/ratings.md, "The field measures its own dispersion"). And
measured bot by bot over a few units, it is noisy: the refit weighs a bot's records by it,
so the noise costs coverage as well.

The field pass holds the whole field's covariance C, so it measures the dispersion again:
for each unit u and bot p of a sample of the game's recent rated matches, the score g at
the field's ratings and the exact leverage v' C v (v the unit's information row of p:
its information with each opponent, negated, and their sum for p itself), the model's
expected squared score being v_p - v' C v (the sandwich's cluster correction with the
fitted ratings' joint uncertainty). Each bot's ratio is shrunk towards the field's pooled
one by POOL_UNITS units, its weight never over OWN_WEIGHT_MAX (a half): a game's bots play
the same game, and the pooled ratio is measured over thousands of units.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypeVar

import numpy as np

from tournaments.rating.model import field_bias
from tournaments.rating.model.field import Field, Stored, field_of
from tournaments.rating.model.field_covariance import Covariance
from tournaments.rating.model.field_deviations import covariance, with_spread
from tournaments.rating.model.global_rating import _S
from tournaments.rating.model.results import Placing, pairwise
from tournaments.rating.model.skill import (
    DISPERSION_MAX,
    DISPERSION_MIN,
    FIELD_PRIOR_DEVIATION,
    Skill,
)

K = TypeVar("K", bound=Hashable)

#: A bot's own measured dispersion counts as much as this many of its units against the
#: field's pooled one. Infinite since issue 47's one rating: every bot takes the pooled
#: ratio (with the information read from the results, RESIDUAL_INFORMATION, a bot's own
#: ratio over a handful of units is noise that goes with its error; the field's is measured
#: over thousands). Before, 8 (chosen by bench.ratings.calibration_ladder: 5 and 10 both
#: centred the 50-bot 4-seat ladder; docs/ratings.md). ``calibration_ladder --pool-units 8``
#: tries the shrunk own ratio again.
POOL_UNITS = math.inf
#: On (issue 47's one rating): the deviations count the field's own spread
#: (``field_spread``, ``field_deviations.with_spread``) instead of the prior's 500. With
#: every bot on the pooled ratio it takes the 50-bot closed and open fields into the band
#: at 5 plays (docs/ratings.md, "The deviation counting the field's own spread, tried";
#: "The one rating switched on"); ``calibration_ladder --no-count-spread`` turns it off.
COUNT_SPREAD = True
#: With COUNT_SPREAD, measure the dispersion at a fit under the field's own spread, which
#: is not spread wider than the truth as the fit under 500 is at few plays: nearer the
#: truth on four and six seats, below it on two (at 5 plays a closed four-seat field of 8
#: reads 1.57 there, 1.68 as the pass, 1.45 at the truth; a closed two-seat one of 50 0.70,
#: 0.88 and 0.80: bench.ratings.dispersion_bias); ``calibration_ladder --measure-at-spread``.
MEASURE_AT_SPREAD = False
#: On (issue 47's one rating): every fit of the pass takes its small-sample bias away
#: (``field_bias``: Firth's adjusted score): the plain fit is spread wider than the truth
#: at a few plays, and the two-seat ladders of 50 fell below the band on it (0.928-0.938);
#: ``calibration_ladder --no-reduce-bias``.
REDUCE_BIAS = True
#: An experiment, off: each pair's information counts where the truth is likely to be, not
#: at the fitted difference: moved to second order by the difference's variance (the
#: field's covariance counting its spread, times the dispersion being measured, which
#: then solves a quadratic); bench.ratings.dispersion_bias's "firth curved" with
#: REDUCE_BIAS. ``calibration_ladder --curved``.
CURVED = False
#: With REDUCE_BIAS: what Firth's pseudo-results are scaled by, in the fit and in its
#: posterior: "one" (the pairwise likelihood's own), "pair" (the
#: pairs' own dispersion, ``pair_dispersion``: a two-seat unit's all, none of what
#: several seats owe to their pairs going together) or "unit" (the pooled dispersion, the
#: quasi-likelihood's form). ``calibration_ladder --firth-scales FIT,POSTERIOR``.
#: The one rating's: "pair" in the fit, "one" in the posterior (scaled there too, the
#: two-seat fields of 8 read above the band at 5 plays: docs/ratings.md, "BF").
FIRTH_SCALES = ("pair", "one")
#: On (issue 47's one rating): the information the dispersion divides by is read from the
#: results themselves, not from p(1-p) at the fit. A pairwise result y of 0, 1/2 or 1
#: with mean p has Var(y) = p(1-p) - P(draw)/4, so p(1-p) is each pair's squared residual
#: plus a quarter for a draw, whatever the fit: at few plays the fit is spread wider than
#: the truth and its p(1-p) too small (the pass's ratio 10-25% high at 5 plays), and no
#: curve then has to guess how much wider (``CURVED`` moved a sparse field of 50 13% below
#: its truth). What the fit absorbs of a unit's score and of its pairs' residuals is the
#: unit's dispersion times their leverages, so the dispersion solves a quadratic
#: (``_residual_ratio``). ``calibration_ladder --no-residual-information``.
RESIDUAL_INFORMATION = True
#: The own ratio's weight ``units / (units + POOL_UNITS)`` never exceeds this: a bot's own
#: ratio never counts for more than the field's pooled one (the cap binds from 8 units on,
#: so 5 plays do not move). Uncapped, a bot of many units leant on its own ratio, whose
#: noise goes with the bot's error (a ratio read low where the fit absorbed its results):
#: the 50-bot two-seat ladders fell with plays (the real draw-heavy one 0.929 at 20 plays;
#: 0.941 capped). docs/ratings.md, "The own ratio's weight, capped at a half";
#: ``calibration_ladder --own-weight-cap W`` tries another.
OWN_WEIGHT_MAX = 0.5
#: Fewer units than this sampled in the whole field: too few to measure the field's own
#: dispersion, so each bot keeps its stored one.
MIN_UNITS = 40


@dataclass
class Sums:
    """Per bot: the squared unit scores, their expected values less the leverage, and
    the units counted."""

    spread: dict[Any, float] = field(default_factory=dict)
    information: dict[Any, float] = field(default_factory=dict)
    units: dict[Any, int] = field(default_factory=dict)
    #: What the information gains per unit of dispersion where CURVED moves it.
    curvature: dict[Any, float] = field(default_factory=dict)
    #: With RESIDUAL_INFORMATION: the units' leverages, their pairs' squared residuals
    #: with a quarter for each draw (the information at the truth) and their leverages.
    leverage: dict[Any, float] = field(default_factory=dict)
    residual: dict[Any, float] = field(default_factory=dict)
    pair_leverage: dict[Any, float] = field(default_factory=dict)

    def add(self, bot: Any, score: float, information: float, **more: float) -> None:
        """One (unit, bot): its score, its information less its leverage and, by name,
        what CURVED and RESIDUAL_INFORMATION add (``curvature``, ``leverage``,
        ``residual``, ``pair_leverage``)."""
        self.spread[bot] = self.spread.get(bot, 0.0) + score * score
        self.information[bot] = self.information.get(bot, 0.0) + information
        self.units[bot] = self.units.get(bot, 0) + 1
        for name in ("curvature", "leverage", "residual", "pair_leverage"):
            kept = getattr(self, name)
            kept[bot] = kept.get(bot, 0.0) + more.get(name, 0.0)

    def pooled(self) -> float | None:
        """The field's dispersion: every unit's squared score over every expected one."""
        return self._ratio(list(self.information))

    def own(self, bot: Any) -> float | None:
        """The bot's own dispersion, as ``pooled`` over its units alone."""
        return self._ratio([bot]) if bot in self.information else None

    def _ratio(self, bots: list[Any]) -> float | None:
        def total(kept: dict[Any, float]) -> float:
            return sum(kept.get(b, 0.0) for b in bots)

        if RESIDUAL_INFORMATION:
            return _residual_ratio(
                total(self.spread),
                total(self.leverage),
                total(self.residual),
                total(self.pair_leverage),
            )
        information = total(self.information)
        if information <= 0.0:
            return None
        return _ratio(total(self.spread), information, total(self.curvature))


def _ratio(spread: float, information: float, curvature: float) -> float:
    """d = spread / (information + d curvature), bounded: spread / information where
    nothing is curved."""
    if curvature <= 0.0:
        return _bounded(spread / information)
    root = math.sqrt(information * information + 4.0 * curvature * spread)
    return _bounded(2.0 * spread / (information + root))


def _residual_ratio(
    spread: float, leverage: float, residual: float, pair_leverage: float
) -> float | None:
    """d = (spread + d leverage) / (residual + d pair_leverage): the units' squared scores
    and their pairs' squared residuals (draws' quarters included) each as at the truth,
    what the fit absorbed of them added back (RESIDUAL_INFORMATION). None where nothing
    was measured."""
    linear = residual - leverage
    if pair_leverage <= 0.0:
        return _bounded(spread / linear) if linear > 0.0 else None
    root = math.sqrt(linear * linear + 4.0 * pair_leverage * spread)
    return _bounded((root - linear) / (2.0 * pair_leverage))


def _bounded(dispersion: float) -> float:
    return min(max(dispersion, DISPERSION_MIN), DISPERSION_MAX)


@dataclass
class Sampled(Generic[K]):
    """A fit and the units it is measured on, with what the measures share, each read
    once (a covariance is an inversion, or a probing above ``DENSE_BOTS``, the pass's
    cost): the units' pairs, the records' own covariance (the leverage) and the
    covariance counting the field's spread (the curve)."""

    found: Field[K]
    units: list[Placing[K]]

    @cached_property
    def pairs(self) -> Pairs | None:
        return _pairs(self.found, self.units)

    @cached_property
    def records(self) -> Covariance:
        """H^-1 of the records alone, Firth's pseudo-results or not: to first order it is
        what the fit absorbs of a unit's score (docs/ratings.md)."""
        return covariance(dataclasses.replace(self.found, penalised=None))

    @cached_property
    def spread(self) -> Covariance:
        return covariance(with_spread(self.found))


def unit_sums(
    found: Field[K], units: Iterable[Placing[K]], sampled: Sampled[K] | None = None
) -> Sums:
    """Each bot's dispersion sums over ``units`` at the field's ratings, the leverage
    from the field's joint covariance (its precision taken as the information: build
    ``found`` with dispersion 1). Pairs with a bot outside the field are left out.
    ``sampled``: the same fit and units, with what another measure already read.

    Every unit's pairs at once, as arrays (``_unit_rows``): a 20,000-match sample is
    120,000 pairs and 80,000 (unit, bot) rows, a Python loop of 16 s at 20,000 bots."""
    sampled = sampled or Sampled(found, list(units))
    rows = _unit_rows(found, sampled.pairs)
    sums = Sums()
    if rows is None:
        return sums
    joint = sampled.records
    group, bot, value, score, own = rows
    # v' C v per group: every pair of its entries (a unit's bots), summed.
    first, size = np.unique(group, return_index=True, return_counts=True)[1:]
    repeat = size[group]
    left = np.repeat(np.arange(len(group)), repeat)
    starts = np.repeat(first[group], repeat)
    offset = np.arange(len(left)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
    right = starts + offset
    product = value[left] * value[right] * joint.entries(bot[left], bot[right])
    leverage = np.bincount(group[left], product, len(first))
    curvature = _curvature(sampled, len(first)) if CURVED else np.zeros(len(first))
    residual, pair_leverage = _residuals(sampled, len(first))
    owner = bot[own]
    for i in range(len(first)):
        sums.add(
            found.keys[owner[i]],
            float(score[i]),
            float(value[own[i]] - leverage[i]),
            curvature=float(curvature[i]),
            leverage=float(leverage[i]),
            residual=float(residual[i]),
            pair_leverage=float(pair_leverage[i]),
        )
    return sums


def _residuals(sampled: Sampled[K], groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per (unit, bot) group, in ``_unit_rows``' order, for RESIDUAL_INFORMATION (zeros
    without): its pairs' squared residuals with a quarter for each draw, and their
    leverages (at dispersion 1)."""
    if not RESIDUAL_INFORMATION:
        return np.zeros(groups), np.zeros(groups)
    found, absorbed = _pair_residuals(sampled)
    return _per_group(sampled, found, groups), _per_group(sampled, absorbed, groups)


def _per_group(sampled: Sampled[K], values: np.ndarray, groups: int) -> np.ndarray:
    """Each pair's ``values`` summed into both its (unit, bot) groups, in ``_unit_rows``'
    order."""
    pairs = sampled.pairs
    assert pairs is not None
    first, second = _pair_groups(pairs, len(sampled.found.keys))
    return np.bincount(first, values, groups) + np.bincount(second, values, groups)


def _pair_residuals(sampled: Sampled[K]) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's squared residual plus a quarter for a draw (S² p(1-p) at the truth, in
    expectation, less what the fit absorbed) and its leverage S⁴ p²(1-p)² var(d)."""
    pairs = sampled.pairs
    assert pairs is not None
    weight = _S * _S * pairs.expected * (1.0 - pairs.expected)
    drawn = np.where(pairs.outcome == 0.5, _S * _S / 4.0, 0.0)
    squared = (_S * (pairs.outcome - pairs.expected)) ** 2
    variance = _difference_variance(sampled.records, pairs)
    return squared + drawn, weight * weight * variance


def _curvature(sampled: Sampled[K], groups: int) -> np.ndarray:
    """Per (unit, bot) group, in ``_unit_rows``' order: its pairs' -f''(d) var(d) / 2
    (``_moved``), which the dispersion multiplies."""
    return _per_group(sampled, _moved(sampled), groups)


def _moved(sampled: Sampled[K]) -> np.ndarray:
    """Each pair's -f''(d) var(d) / 2, f(d) = S² p(1-p), var(d) the fitted difference's
    variance at dispersion 1 (the covariance counting the field's spread)."""
    pairs = sampled.pairs
    assert pairs is not None
    variance = _difference_variance(sampled.spread, pairs)
    f = pairs.expected * (1.0 - pairs.expected)
    return -0.5 * _S**4 * f * (1.0 - 6.0 * f) * variance


def pair_dispersion(
    found: Field[K],
    units: Iterable[Placing[K]],
    sampled: Sampled[K] | None = None,
    unit: float = 1.0,
) -> float | None:
    """The pairs' own dispersion: as ``Sums.pooled``, but each pair of a unit taken alone,
    so that what a unit of several seats owes to its pairs going together is left out (a
    pair of two seats is its unit: there it is the pooled ratio). Build ``found`` with
    dispersion 1. None where no pair is in the field. ``sampled`` as for ``unit_sums``.
    With RESIDUAL_INFORMATION, 1 - draws / (4 p(1-p)) summed over the pairs, the
    residuals' absorbed part counted at the units' dispersion ``unit``."""
    sampled = sampled or Sampled(found, list(units))
    pairs = sampled.pairs
    if pairs is None:
        return None
    if RESIDUAL_INFORMATION:
        residual, absorbed = (float(np.sum(a)) for a in _pair_residuals(sampled))
        drawn = float(np.sum(pairs.outcome == 0.5)) * _S * _S / 4.0
        truth = residual - drawn + unit * absorbed
        return _bounded(truth / (truth + drawn)) if truth + drawn > 0.0 else None
    variance = _difference_variance(sampled.records, pairs)
    weight = _S * _S * pairs.expected * (1.0 - pairs.expected)
    spread = float(np.sum((_S * (pairs.outcome - pairs.expected)) ** 2))
    information = float(np.sum(weight - weight * weight * variance))
    curvature = float(np.sum(_moved(sampled))) if CURVED else 0.0
    if information <= 0.0:
        return None
    return _ratio(spread, information, curvature)


def _difference_variance(joint: Covariance, pairs: Pairs) -> np.ndarray:
    """Each pair's fitted difference's variance under ``joint``."""
    left, right = pairs.left, pairs.right
    both = joint.entries(left, left) + joint.entries(right, right)
    return both - 2.0 * joint.entries(left, right)


@dataclass(frozen=True)
class Pairs:
    """Every pair of ``units`` within the field: its unit's number, its two bots' indices,
    the left's result and expected score."""

    at: np.ndarray
    left: np.ndarray
    right: np.ndarray
    outcome: np.ndarray
    expected: np.ndarray


def _pairs(found: Field[K], units: Iterable[Placing[K]]) -> Pairs | None:
    index = found.index
    rows: list[tuple[int, int, int, float]] = []
    for u, unit in enumerate(units):
        for a, b, y in pairwise(unit.seats, unit.places):
            if a in index and b in index:
                rows.append((u, index[a], index[b], y))
    if not rows:
        return None
    at, left, right, outcome = (np.asarray(column) for column in zip(*rows, strict=True))
    elo = np.fromiter((found.elo[k] for k in found.keys), float, len(found.keys))
    expected = 1.0 / (1.0 + np.exp(-_S * (elo[left] - elo[right])))
    return Pairs(at, left, right, outcome.astype(float), expected)


def _pair_groups(pairs: Pairs, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's (unit, bot) group, numbered as ``_unit_rows`` numbers them: the left's
    and the right's."""
    at, count = pairs.at, len(pairs.left)
    me = np.concatenate([pairs.left, pairs.left, pairs.right, pairs.right])
    group = np.unique(np.concatenate([at, at, at, at]) * n + me, return_inverse=True)[1]
    return group[:count], group[2 * count : 3 * count]


def _unit_rows(
    found: Field[K], pairs: Pairs | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Each (unit, bot) of the units' ``pairs`` (``_pairs``), numbered in order (a
    group): its information row's entries as (group, bot index, value), sorted by group,
    each group's score (its pairs' residuals) and the entry of the bot itself. None
    where no pair is in the field."""
    if pairs is None:
        return None
    at, left, right = pairs.at, pairs.left, pairs.right
    expected = pairs.expected
    weight = _S * _S * expected * (1.0 - expected)
    n, count = len(found.keys), len(left)
    # (unit, me) as one key; each pair adds to both sides' rows.
    me = np.concatenate([left, left, right, right])
    entry = np.concatenate([left, right, right, left])
    groups, group = np.unique(np.concatenate([at, at, at, at]) * n + me, return_inverse=True)
    value = np.concatenate([weight, -weight, weight, -weight])
    cells, cell = np.unique(group * n + entry, return_inverse=True)
    summed = np.bincount(cell, value, len(cells))
    residual = np.concatenate([_S * (pairs.outcome - expected)] * 2)
    won = np.bincount(group[: 2 * count], residual, len(groups))
    score = (won - np.bincount(group[2 * count :], residual, len(groups))) / 2.0
    cell_group, cell_bot = cells // n, cells % n
    own = np.flatnonzero(cell_bot == groups[cell_group] % n)
    return cell_group, cell_bot, summed, score, own


def temperings(sums: Sums, bots: Iterable[K]) -> dict[K, float] | None:
    """Each bot's dispersion: its own ratio shrunk towards the pooled one by POOL_UNITS,
    its weight at most OWN_WEIGHT_MAX (a bot with no unit sampled takes the pooled one);
    None when fewer than MIN_UNITS bots' units were measured."""
    pooled = sums.pooled()
    if pooled is None or sum(sums.units.values()) < MIN_UNITS:
        return None
    found = {}
    for bot in bots:
        units, own = sums.units.get(bot, 0), sums.own(bot)
        own = pooled if own is None else own
        weight = min(units / (units + POOL_UNITS), OWN_WEIGHT_MAX)
        found[bot] = weight * own + (1.0 - weight) * pooled
    return found


def _firth_scales(sampled: Sampled[K], dispersion: Mapping[K, float] | None) -> tuple[float, float]:
    """What the fit's and the posterior's pseudo-results are multiplied by (FIRTH_SCALES)
    on top of the pairwise likelihood's own."""
    if not REDUCE_BIAS or FIRTH_SCALES == ("one", "one"):
        return 1.0, 1.0
    unit = statistics.fmean(dispersion.values()) if dispersion else None
    pairs = None
    if "pair" in FIRTH_SCALES:
        pairs = pair_dispersion(sampled.found, sampled.units, sampled, unit or 1.0)
    by = {"one": 1.0, "pair": pairs or 1.0, "unit": unit or 1.0}
    return by[FIRTH_SCALES[0]], by[FIRTH_SCALES[1]]


def measured_field(
    skills: Mapping[K, Skill] | Stored[K],
    units: Iterable[Placing[K]],
    keys: Mapping[Any, K] | None = None,
    chosen: float = 0.0,
) -> Field[K]:
    """The field refitted with the dispersion its units show: fitted first with
    dispersion 1 (its precision is then the information), the dispersion measured there
    (``unit_sums``), then fitted again with it. Without units, the stored dispersions'
    field (``field_of``). With COUNT_SPREAD, its own spread measured too
    (``field_deviations.with_spread``), which its deviations then count. ``chosen``: the
    share of the units a matchmaker seated (the ladder's), which keeps the deviations at
    the penalised posterior's width, as tables of more than two seats do
    (``field_bias.sandwich_share``)."""
    plain = field_of(skills, keys, dispersion=dict.fromkeys(skills, 1.0), reduce_bias=REDUCE_BIAS)
    measured_at = plain
    if COUNT_SPREAD and MEASURE_AT_SPREAD:
        spread = with_spread(plain).spread or FIELD_PRIOR_DEVIATION
        ones = dict.fromkeys(skills, 1.0)
        measured_at = field_of(skills, keys, dispersion=ones, start=plain.elo, prior=spread)
    sampled = Sampled(measured_at, list(units))
    dispersion = temperings(unit_sums(measured_at, sampled.units, sampled), skills)
    scales = _firth_scales(sampled, dispersion)
    if dispersion is None:
        found = field_of(skills, keys, reduce_bias=REDUCE_BIAS)
    else:
        found = field_of(
            skills,
            keys,
            dispersion=dispersion,
            start=plain.elo,
            reduce_bias=REDUCE_BIAS,
            bias_scale=scales[0],
            posterior_scale=scales[1],
        )
    if found.penalised is not None:
        paired = sum(len(u.seats) == 2 for u in sampled.units) / max(len(sampled.units), 1)
        share = field_bias.sandwich_share(len(found.keys), chosen, paired)
        found = dataclasses.replace(found, sandwich=share)
    return with_spread(found) if COUNT_SPREAD else found
