"""The sequential probability ratio test of a duel, on pentanomial pair outcomes.

A duel plays duplicate pairs: the same deal twice with B and A in swapped seats. Each game
scores 1, 0.5 or 0 for B (its score above, equal to or below A's), so a pair scores 0,
0.5, 1, 1.5 or 2: five categories, the pentanomial model. Counting pairs rather than games
keeps the luck the two games share (the same cards) out of the variance, which is why a
duplicate duel decides in fewer games than one of independent games.

The hypotheses are about B's logistic Elo over A: H0 "B is at most ``elo0`` stronger"
against H1 "B is at least ``elo1`` stronger" (default [0, 20]). Both are composite: the
shape of the pair distribution is unknown, so each is represented by the distribution of
largest likelihood whose mean score is that hypothesis's (the generalized SPRT). The
log-likelihood ratio is compared with Wald's bounds ln(beta / (1 - alpha)) and
ln((1 - beta) / alpha): H0 is accepted below the first, H1 above the second.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

#: A pair's points (0 to 2 in halves) as a score from 0 to 1, per pentanomial category.
PAIR_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Pseudo-count added to every category before the likelihoods are maximized: without it
#: the largest-likelihood distribution does not exist when every observed pair lies on one
#: side of a hypothesis's mean (say the first ten pairs all won by B).
PSEUDO_COUNT: Final = 1e-3
#: Two-sided 95% normal quantile, for the Elo interval.
Z_95: Final = 1.959963984540054


def logistic_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo, 400 scale)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def logistic_elo(score: float) -> float:
    """The Elo difference that makes ``score`` (strictly between 0 and 1) the expected one."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"a score must be strictly between 0 and 1 for an Elo, not {score}")
    return -400.0 * math.log10(1.0 / score - 1.0)


def pair_category(points: float) -> int:
    """The pentanomial category (0 to 4) of a pair in which B made ``points`` of 2."""
    category = round(points * 2)
    if category not in range(5) or category != points * 2:
        raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {points}")
    return category


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs fell in each category, from B losing both games (0) to winning both."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or any(count < 0 for count in self.counts):
            raise ValueError(f"five counts of at least 0 are needed, not {self.counts}")

    def add(self, points: float) -> Pentanomial:
        """These counts with one more pair in which B made ``points`` (0 to 2)."""
        counts = list(self.counts)
        counts[pair_category(points)] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def games(self) -> int:
        return 2 * self.pairs

    def mean(self) -> float:
        """B's mean score per game (0 to 1); 0.5 before any pair."""
        if not self.pairs:
            return 0.5
        return sum(n * s for n, s in zip(self.counts, PAIR_SCORES, strict=True)) / self.pairs

    def variance(self) -> float:
        """The variance of one pair's score (on the 0 to 1 scale) among the pairs played."""
        if not self.pairs:
            return 0.0
        mean = self.mean()
        spread = sum(n * (s - mean) ** 2 for n, s in zip(self.counts, PAIR_SCORES, strict=True))
        return spread / self.pairs


def _solve_lambda(probs: Sequence[float], gaps: Sequence[float]) -> float:
    """The root lam of sum p_i d_i / (1 + lam d_i), strictly decreasing on the interval
    keeping every denominator positive: Newton's method kept inside a shrinking bracket (a
    bisection step whenever Newton would leave it), so it converges in a few steps and
    never leaves the domain. Plain loops over local lists: the test computes this twice
    after every pair, and bench/duels/estimate.py millions of times."""
    terms = list(zip(probs, gaps, strict=True))
    low, high = -1.0 / max(gaps), -1.0 / min(gaps)
    lam = 0.0
    for _ in range(200):
        value = slope = 0.0
        for w, d in terms:
            share = d / (1.0 + lam * d)
            value += w * share
            slope -= w * share * share
        if abs(value) < 1e-15:
            break
        if value > 0.0:
            low = lam
        else:
            high = lam
        newton = lam - value / slope
        lam = newton if low < newton < high else (low + high) / 2.0
        if high - low < 1e-15 * max(1.0, abs(lam)):
            break
    return lam


def fit_mean(weights: Sequence[float], values: Sequence[float], mean: float) -> list[float]:
    """The distribution over ``values`` of largest likelihood for the observed ``weights``
    among those whose mean is ``mean``.

    Maximizing sum w_i log p_i under sum p_i = 1 and sum p_i v_i = mean gives
    p_i = w_i / (1 + lam (v_i - mean)) (weights normalized), where lam is the one root of
    the strictly decreasing sum w_i d_i / (1 + lam d_i) (d_i = v_i - mean) on the interval
    keeping every denominator positive. ``mean`` must lie strictly between the smallest
    and largest value of positive weight.
    """
    total = sum(weights)
    kept = [(w / total, v - mean) for w, v in zip(weights, values, strict=True) if w > 0]
    probs, gaps = [w for w, _ in kept], [d for _, d in kept]
    if not min(gaps) < 0.0 < max(gaps):
        raise ValueError(f"the mean {mean} is not strictly inside the observed values")
    lam = _solve_lambda(probs, gaps)
    return [
        w / total / (1.0 + lam * (v - mean)) if w > 0 else 0.0
        for w, v in zip(weights, values, strict=True)
    ]


def log_likelihood_ratio(counts: Sequence[float], score0: float, score1: float) -> float:
    """ln of the likelihood of ``counts`` (per pentanomial category) under the fitted
    distribution of mean ``score1`` over the one of mean ``score0``."""
    under0 = fit_mean(counts, PAIR_SCORES, score0)
    under1 = fit_mean(counts, PAIR_SCORES, score1)
    return sum(
        n * math.log(p1 / p0) for n, p0, p1 in zip(counts, under0, under1, strict=True) if n > 0
    )


class Decision(StrEnum):
    """Where a duel stands."""

    RUNNING = "running"
    H0 = "H0"  # B is not elo1 stronger (at most elo0), wrong with probability at most beta
    H1 = "H1"  # B is stronger by more than elo0, wrong with probability at most alpha
    CAP = "cap"  # the game cap came first: no decision


@dataclass(frozen=True)
class Estimate:
    """B's Elo over A with a 95% interval (None where the score is 0 or 1: unbounded)."""

    elo: float | None
    low: float | None
    high: float | None


def _elo_or_none(score: float) -> float | None:
    return logistic_elo(score) if 0.0 < score < 1.0 else None


def estimate(penta: Pentanomial) -> Estimate:
    """The Elo estimate from the mean pair score, with the interval of its normal
    approximation (the pair variance over the number of pairs)."""
    if penta.pairs < 2:
        return Estimate(None, None, None)
    mean = penta.mean()
    half = Z_95 * math.sqrt(penta.variance() / penta.pairs)
    return Estimate(_elo_or_none(mean), _elo_or_none(mean - half), _elo_or_none(mean + half))


@dataclass(frozen=True)
class Sprt:
    """The test's settings: Elo bounds, error rates, and the cap in games (0: none)."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 4000

    def __post_init__(self) -> None:
        if not -400.0 <= self.elo0 < self.elo1 <= 400.0:
            raise ValueError(
                f"the Elo bounds need -400 <= elo0 < elo1 <= 400, not [{self.elo0}, {self.elo1}]"
            )
        if not (0.0 < self.alpha < 0.5 and 0.0 < self.beta < 0.5):
            raise ValueError(
                f"alpha and beta must be above 0 and below 0.5, not {self.alpha}, {self.beta}"
            )
        if self.max_games < 0 or self.max_games % 2:
            raise ValueError(f"the game cap must be an even number >= 0, not {self.max_games}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def scores(self) -> tuple[float, float]:
        """The mean scores per game of H0 and H1."""
        return logistic_score(self.elo0), logistic_score(self.elo1)

    def llr(self, penta: Pentanomial) -> float:
        """The log-likelihood ratio of the pairs so far (0 before any)."""
        if not penta.pairs:
            return 0.0
        counts = [n + PSEUDO_COUNT for n in penta.counts]
        return log_likelihood_ratio(counts, *self.scores)

    def decide(self, llr: float, games: int) -> Decision:
        """The decision for an LLR reached after ``games`` games."""
        if llr <= self.lower:
            return Decision.H0
        if llr >= self.upper:
            return Decision.H1
        if self.max_games and games >= self.max_games:
            return Decision.CAP
        return Decision.RUNNING
