"""What a duel's test should achieve, from Wald's theory: the operating characteristic
(the chance of accepting H1 at a true Elo) and the average sample number (pairs played).

For many pairs the log-likelihood ratio of ``sprt`` is close to a random walk whose step
per pair has mean m = d (2 mu - s0 - s1) / (2 var) and variance v = d^2 / var, where
s0, s1 are the hypotheses' scores, d = s1 - s0, mu the true mean score and var the true
variance of a pair's score. Treated as a Brownian motion between the bounds a < 0 < b,
exp(-theta X) with theta = 2 m / v is a martingale, which gives both figures (no overshoot:
real walks jump past the bounds, so they err a little less and play a little longer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judge.duel.sprt import Sprt


@dataclass(frozen=True)
class Expected:
    """The theory's figures at one true mean score: P(accept H1) and pairs on average."""

    p_h1: float
    pairs: float


def walk(test: Sprt, mean: float, variance: float) -> tuple[float, float]:
    """The LLR walk's mean and variance per pair, for a true ``mean`` and pair ``variance``."""
    score0, score1 = test.scores
    gap = score1 - score0
    return gap * (2.0 * mean - score0 - score1) / (2.0 * variance), gap * gap / variance


def expected(test: Sprt, mean: float, variance: float) -> Expected:
    """The operating characteristic and average sample number at a true ``mean`` score
    and pair ``variance`` (on the 0 to 1 scale), without a game cap."""
    drift, spread = walk(test, mean, variance)
    low, high = test.lower, test.upper
    theta = 2.0 * drift / spread
    if abs(theta) < 1e-9:
        return Expected(-low / (high - low), -low * high / spread)
    p_h1 = -math.expm1(-theta * low) / (math.exp(-theta * high) - math.exp(-theta * low))
    return Expected(p_h1, (p_h1 * high + (1.0 - p_h1) * low) / drift)
