"""B's Elo over A after a sequential test: an estimate and interval that know when it stopped.

The plain estimate (the Elo of B's mean score, with m ± 1.96 sd / sqrt(pairs)) treats the
pairs as a sample of fixed size. A duel's size is not fixed: it stops when the log-
likelihood ratio (LLR) reaches a bound, that is when the data look extreme, so the plain
interval covers the truth too rarely (0.87-0.92 near and between the bounds, issue 47) and
a duel accepting H1 by luck reports an Elo far above the truth.

Here each outcome of the test is placed in one order, from the most favourable to A to the
most favourable to B (the "stagewise" ordering of sequential analysis): H0 accepted early,
H0 accepted late, no decision yet (by the LLR reached), H1 accepted late, H1 accepted
early. For a candidate true Elo, ``outcome_cdf`` is the chance of an outcome at or below
the one observed; the interval's ends are the Elos at which that chance is 97.5% and 2.5%,
and the estimate the one at which it is 50% (median-unbiased: the estimate is as often
above the truth as below it, whatever the stopping rule did).

The chance comes from the LLR seen as a Brownian motion between the bounds, as in Wald's
theory and fishtest's intervals for SPRT runs: each pair adds the log ratio of its
category's probability under the two fitted laws (exactly how the test's LLR is made),
with the mean and variance these steps have when the pairs follow the observed law
tilted to the candidate's mean score. The test looks at the LLR after every pair (issue
45; a duel stored before looked once a round), not continuously; Siegmund's corrected
diffusion (the bounds moved outwards by 0.583 step sd * sqrt(pairs per look)) accounts for
the steps it jumps by, and a stop is counted half way through the look it came in (the
observed look is shared between "earlier" and "later"). The pairs played after the
decision (the overshoot of its round, ``judge.duel.state``) are not in ``penta``: the
model is the test that stopped at the crossing.
The Brownian motion's chances are sums over images (``Walk``), in logarithms so that no
term overflows. Standard library only, like the rest of judge.duel.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from judge.duel.sprt import (
    PAIR_SCORES,
    PSEUDO_COUNT,
    Decision,
    Estimate,
    Pentanomial,
    Sprt,
    fit_mean,
    logistic_score,
)

#: -zeta(1/2) / sqrt(2 pi): how far (in step sds) a random walk looked at once per step
#: overshoots its bound on average, beyond where a continuous Brownian motion stops.
SIEGMUND_RHO: Final = 0.5825971579390106
#: The Elo range searched for the interval's ends; beyond it an end is "unbounded".
ELO_RANGE: Final = 800.0
#: The interval's ends and the estimate are found to this many Elo.
ELO_TOLERANCE: Final = 0.01
#: The least pair variance (score scale) the walk's step is scaled by: 1/16 of a pair's
#: largest, as if one pair in 256 had gone 2-0 and one 0-2 (only all-drawn duels need it).
MIN_VARIANCE: Final = 1.0 / 512.0
#: Newton's steps at most for the bias-adjusted estimate.
ADJUST_STEPS: Final = 4
_LOG_HALF: Final = math.log(0.5)
_SQRT2: Final = math.sqrt(2.0)
_HALF_LOG_2PI: Final = 0.5 * math.log(2.0 * math.pi)


def _log_cdf(z: float) -> float:
    """ln Phi(z), the standard normal distribution, without underflow far in the left tail."""
    if z > -30.0:
        return _LOG_HALF + math.log(math.erfc(-z / math.sqrt(2.0)))
    inverse = 1.0 / (z * z)
    return -0.5 * z * z - math.log(-z) - _HALF_LOG_2PI + math.log1p(-inverse + 3 * inverse**2)


def _log_between(low: float, high: float) -> float:
    """ln(Phi(high) - Phi(low)), -inf for an empty range; the upper tail is used for a
    range above 0, so that a mass near 1 minus another near 1 keeps its digits."""
    if high <= low:
        return -math.inf
    if low > 0.0:
        return _log_between(-high, -low)
    top = _log_cdf(high)
    gap = _log_cdf(low) - top
    return top + math.log1p(-math.exp(gap)) if gap < 0.0 else -math.inf


def _scaled_mass(log_factor: float, low: float, high: float) -> float:
    """exp(log_factor) (Phi(high) - Phi(low)): directly while the factor is representable
    (each tail's difference taken on its own side, so neither loses its digits), else
    in logarithms."""
    if log_factor > 600.0:
        mass = _log_between(low, high)
        return math.exp(log_factor + mass) if mass > -math.inf else 0.0
    if low > 0.0:
        mass = 0.5 * (math.erfc(low / _SQRT2) - math.erfc(high / _SQRT2))
    else:
        mass = 0.5 * (math.erfc(-high / _SQRT2) - math.erfc(-low / _SQRT2))
    return math.exp(log_factor) * mass if mass > 0.0 else 0.0


@dataclass(frozen=True)
class Walk:
    """A Brownian motion from 0 with ``drift`` and ``variance`` per pair, absorbed at
    ``low`` < 0 < ``high``.

    Its density among the paths not yet absorbed at time t is the free Gaussian's sum over
    images (sources at 2kA, sinks at 2 low + 2kA, A = high - low), times the drift's
    factor exp(gamma x - drift^2 t / (2 variance)), gamma = drift / variance. Multiplied
    by that factor, each image is again a Gaussian (its centre moved by drift * t), so
    every chance below is a signed sum of normal masses.
    """

    drift: float
    variance: float
    low: float
    high: float

    @property
    def gamma(self) -> float:
        return self.drift / self.variance

    def reflected(self) -> Walk:
        """The same motion seen upside down: the bounds swapped, the drift reversed."""
        return Walk(-self.drift, self.variance, -self.high, -self.low)

    def _images(self, t: float) -> list[tuple[float, float]]:
        """(centre, sign) of every image that matters at time ``t``: those centred within
        L spreads of the bounds. A term is at most the image's free mass on [low, high]
        times exp(|gamma| A), so L = sqrt(2 (37 + |gamma| A)) keeps each left out below
        e^-37 (1e-16)."""
        width = self.high - self.low
        reach = math.sqrt(2.0 * (37.0 + abs(self.gamma) * width)) * math.sqrt(self.variance * t)
        images = []
        for offset, sign in ((0.0, 1.0), (2.0 * self.low, -1.0)):
            first = math.ceil((self.low - reach - offset) / (2.0 * width))
            last = math.floor((self.high + reach - offset) / (2.0 * width))
            images += [(offset + 2.0 * k * width, sign) for k in range(first, last + 1)]
        return images

    def _mass(self, t: float, upto: float, tilt: float, log_scale: float = 0.0) -> float:
        """The integral over x from ``low`` to ``upto`` of the unabsorbed density times
        exp(tilt * x + log_scale), for tilt 0 or -2 gamma (the two the chances need); the
        scale is added inside the exponent, where a huge and a tiny factor meet."""
        spread = math.sqrt(self.variance * t)
        moved = self.drift * t if tilt == 0.0 else -self.drift * t
        gamma = self.gamma if tilt == 0.0 else -self.gamma
        total = 0.0
        for centre, sign in self._images(t):
            # exp(gamma c) N(c + drift t) for tilt 0; exp(-gamma c) N(c - drift t) for -2 gamma.
            factor = log_scale + gamma * centre
            middle = centre + moved
            total += sign * _scaled_mass(
                factor, (self.low - middle) / spread, (upto - middle) / spread
            )
        return total

    def _first_moment(self, t: float) -> float:
        """E[X_t; neither bound reached by ``t``]: each image's Gaussian mean on [low, high]."""
        spread = math.sqrt(self.variance * t)
        total = 0.0
        for centre, sign in self._images(t):
            middle = centre + self.drift * t
            z_low, z_high = (self.low - middle) / spread, (self.high - middle) / spread
            factor = self.gamma * centre
            total += sign * middle * _scaled_mass(factor, z_low, z_high)
            for z, side in ((z_high, 1.0), (z_low, -1.0)):
                total -= sign * side * spread * math.exp(factor - 0.5 * z * z - _HALF_LOG_2PI)
        return total

    def alive_below(self, t: float, y: float) -> float:
        """P(neither bound reached by ``t`` and the motion at or below ``y`` then)."""
        if self.gamma < 0.0:
            mirror = self.reflected()
            return mirror.alive_below(t, mirror.high) - mirror.alive_below(t, -y)
        return min(1.0, max(0.0, self._mass(t, min(y, self.high), 0.0)))

    def exits(self, t: float) -> tuple[float, float]:
        """P(the upper bound reached first, by ``t``) and P(the lower one)."""
        if self.gamma < 0.0:
            low, high = self.reflected().exits(t)
            return high, low
        high = min(1.0, max(0.0, self._high_by(t)))
        return high, min(1.0, max(0.0, 1.0 - self.alive_below(t, self.high) - high))

    def high_by(self, t: float) -> float:
        """P(the upper bound reached first, by time ``t``)."""
        return self.exits(t)[0]

    def low_by(self, t: float) -> float:
        """P(the lower bound reached first, by time ``t``)."""
        return self.exits(t)[1]

    def mean_per_pair(self, cap: float, points: int = 24) -> float:
        """E[X_tau / tau], tau the time a bound is reached or ``cap``, whichever comes first:
        what the plain estimate (the walk's value over its length) averages.

        E[1 / tau; a bound by cap] = H(cap) / cap + integral of H(t) / t^2 dt up to cap (by
        parts; H the chance of that bound by t), the integral on a grid even in ln t."""
        first = max(cap * 1e-3, min(1.0, cap))
        ratio = (cap / first) ** (1.0 / (points - 1))
        times = [first * ratio**k for k in range(points)]
        chances = [self.exits(t) for t in times]
        total = 0.0
        for side, bound in ((0, self.high), (1, self.low)):
            values = [c[side] / t for c, t in zip(chances, times, strict=True)]
            inner = sum((u + v) / 2.0 for u, v in itertools.pairwise(values))
            total += bound * (chances[-1][side] / cap + inner * math.log(ratio))
        # The alive paths' mean, from the side where exp(gamma c) stays small.
        moment = (
            self._first_moment(cap) if self.gamma >= 0.0 else -self.reflected()._first_moment(cap)
        )
        return total + moment / cap

    def _high_by(self, t: float) -> float:
        """For gamma >= 0. Reaching the upper bound first from x has the chance
        h(x) = (1 - exp(-2 gamma (x - low))) / (1 - exp(-2 gamma A)); by time t it is
        h(0) less the chance of doing so later, E[h(X_t); not yet absorbed]. Without
        drift h(x) = (x - low) / A (the formula's limit, which it reaches only through
        0 / 0: below gamma A = 1e-8 the walk is taken as driftless, an error under 1e-8)."""
        width = self.high - self.low
        gamma = self.gamma
        alive = self._mass(t, self.high, 0.0)
        if gamma * width < 1e-8:
            return (-self.low - (self._first_moment(t) - self.low * alive)) / width
        scale = -math.expm1(-2.0 * gamma * width)
        start = -math.expm1(2.0 * gamma * self.low) / scale
        weighted = self._mass(t, self.high, -2.0 * gamma, 2.0 * gamma * self.low)
        return start - (alive - weighted) / scale


@dataclass(frozen=True)
class Outcome:
    """What a duel showed: its decision, the pairs played, the LLR, the pairs per look."""

    decision: Decision
    pairs: int
    llr: float
    per_look: float


def _steps(test: Sprt, penta: Pentanomial, llr: float) -> tuple[list[float], list[float]]:
    """The observed law (with the test's pseudo-count) and each category's LLR step.

    For many pairs the test's LLR is k * sum(score - c) over the pairs, c the middle of
    H0's and H1's scores and k = (s1 - s0) / the pair variance, so each category steps by
    k (score - c). k is taken from the duel itself, the LLR reached over sum(score - c),
    so that the walk ends where the test's LLR did (with the plain variance where that sum
    is too near 0 to divide by). The exact log ratios of the fitted laws are not used:
    a rare category's is large, and a walk of such steps spreads far more than the test's
    LLR does (its intervals covered 0.99 of the time in bench/duels/estimate.py)."""
    weights = [n + PSEUDO_COUNT for n in penta.counts]
    score0, score1 = test.scores
    middle = (score0 + score1) / 2.0
    total = sum(n * (x - middle) for n, x in zip(penta.counts, PAIR_SCORES, strict=True))
    scale = (score1 - score0) / max(penta.variance(), MIN_VARIANCE)
    if abs(total * scale) > 0.5 and llr / total > 0.0:
        scale = llr / total
    return weights, [scale * (x - middle) for x in PAIR_SCORES]


def _walk_at(test: Sprt, penta: Pentanomial, per_look: float) -> Callable[[float], Walk]:
    """The LLR's walk, as a function of B's true Elo: its steps are the observed categories'
    log ratios, taken with the chances of the observed law tilted to that Elo's mean score;
    the bounds moved out by Siegmund's correction for a look every ``per_look`` pairs."""
    weights, steps = _steps(test, penta, test.llr(penta))

    def walk(elo: float) -> Walk:
        law = fit_mean(weights, PAIR_SCORES, logistic_score(elo))
        drift = sum(p * s for p, s in zip(law, steps, strict=True))
        variance = max(sum(p * (s - drift) ** 2 for p, s in zip(law, steps, strict=True)), 1e-12)
        shift = SIEGMUND_RHO * math.sqrt(variance * per_look)
        return Walk(drift, variance, test.lower - shift, test.upper + shift)

    return walk


def outcome_cdf(test: Sprt, penta: Pentanomial, outcome: Outcome) -> Callable[[float], float]:
    """The chance, as a function of B's true Elo, of an outcome at or below ``outcome`` in
    the stagewise order (decreasing in the Elo)."""
    walk_at = _walk_at(test, penta, outcome.per_look)
    # A stop is counted half way through its look: half its look's chance is "earlier".
    earlier = max(outcome.pairs - outcome.per_look / 2.0, 1e-9)

    def cdf(elo: float) -> float:
        walk = walk_at(elo)
        if outcome.decision is Decision.H1:
            return 1.0 - walk.high_by(earlier)
        if outcome.decision is Decision.H0:
            return walk.low_by(earlier)
        return walk.low_by(outcome.pairs) + walk.alive_below(outcome.pairs, outcome.llr)

    return cdf


def adjusted_elo(test: Sprt, penta: Pentanomial, outcome: Outcome, start: float) -> float:
    """The bias-adjusted estimate (Whitehead): the Elo whose duels, stopped by the same rule,
    give on average the plain estimate observed, E[LLR / pairs] = the observed one.

    Newton's steps from ``start`` (the median-unbiased estimate, already close), the slope
    taken from the walk's drift alone (the stopping rule's share of it changes slowly), so
    each step costs one expectation; a few steps settle within a tenth of an Elo."""
    walk_at = _walk_at(test, penta, outcome.per_look)
    if outcome.decision in (Decision.H0, Decision.H1):
        cap = test.max_games / 2.0 if test.max_games else 50.0 * outcome.pairs
    else:  # no bound yet: outcomes as of now (running) or of the cap
        cap = float(outcome.pairs)
    observed = outcome.llr / outcome.pairs
    elo = start
    for _ in range(ADJUST_STEPS):
        walk = walk_at(elo)
        slope = (walk_at(elo + 1.0).drift - walk_at(elo - 1.0).drift) / 2.0
        step = (observed - walk.mean_per_pair(cap)) / slope if slope > 0.0 else 0.0
        elo = max(-ELO_RANGE, min(ELO_RANGE, elo + step))
        if abs(step) < 0.1:
            break
    return elo


def _solve(f: Callable[[float], float], target: float, guess: float) -> float | None:
    """The Elo at which the decreasing ``f`` equals ``target``, or None when the search
    range's end does not reach it (that end of the interval is unbounded). A bracket
    grows from ``guess``, then the Illinois variant of regula falsi closes it."""
    low, high = max(-ELO_RANGE, guess - 16.0), min(ELO_RANGE, guess + 16.0)
    f_low, f_high = f(low) - target, f(high) - target
    step = 16.0
    while f_low < 0.0:
        if low <= -ELO_RANGE:
            return None
        step *= 2.0
        high, f_high = low, f_low
        low = max(-ELO_RANGE, guess - step)
        f_low = f(low) - target
    while f_high > 0.0:
        if high >= ELO_RANGE:
            return None
        step *= 2.0
        low, f_low = high, f_high
        high = min(ELO_RANGE, guess + step)
        f_high = f(high) - target
    side = 0  # which end moved last: Illinois halves the other's value when it repeats
    for _ in range(200):
        if high - low <= ELO_TOLERANCE:
            break
        middle = low + f_low * (high - low) / (f_low - f_high)
        if not low < middle < high:
            middle = (low + high) / 2.0
        f_middle = f(middle) - target
        if f_middle == 0.0:
            return middle
        if f_middle > 0.0:
            low, f_low = middle, f_middle
            f_high, side = (f_high / 2.0 if side > 0 else f_high), 1
        else:
            high, f_high = middle, f_middle
            f_low, side = (f_low / 2.0 if side < 0 else f_low), -1
    return (low + high) / 2.0


def sequential_estimate(
    test: Sprt, penta: Pentanomial, decision: Decision, looks: int, level: float = 0.95
) -> Estimate:
    """B's Elo over A with its ``level`` interval, after ``looks`` looks at the LLR (one a
    pair; one a round for a duel stored before issue 45) that played ``penta``'s pairs and
    ended in ``decision`` (RUNNING or CAP: no bound
    reached yet). The interval's ends come from the stagewise order (``outcome_cdf``); the
    estimate is bias-adjusted (Whitehead): the Elo whose duels, stopped by the same rule,
    give on average the plain estimate observed (``adjusted_elo``). An end is None
    (unbounded) only where the search range's end is still consistent with the duel."""
    if penta.pairs < 2 or looks < 1:
        return Estimate(None, None, None)
    outcome = Outcome(decision, penta.pairs, test.llr(penta), penta.pairs / looks)
    cdf = outcome_cdf(test, penta, outcome)
    tail = (1.0 - level) / 2.0
    median = _solve(cdf, 0.5, 0.0)
    guess = 0.0 if median is None else median
    ends = _solve(cdf, 1.0 - tail, guess), _solve(cdf, tail, guess)
    if median is None:  # beyond the range: B won (or lost) nearly every pair
        return Estimate(None, *ends)
    adjusted = adjusted_elo(test, penta, outcome, median)
    low = -ELO_RANGE if ends[0] is None else ends[0]
    high = ELO_RANGE if ends[1] is None else ends[1]
    # The adjustment is a small correction of the median; where the walk fits the duel so
    # badly that it would leave the interval, the median-unbiased estimate stands.
    return Estimate(adjusted if low < adjusted < high else median, *ends)
