"""One-sided p-values and the threshold over many versions that keeps honest ones unflagged.

Each audit tests every version it has enough results of; testing hundreds at 1% each
would flag a few honest ones every run. Holm's step-down procedure keeps the chance that
*any* honest version of the run is flagged at most ``alpha`` (the family-wise error),
whatever the dependence between the tests, and flags at least as much as Bonferroni.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

#: The default family-wise error of one audit run: at most 1% of runs flag an honest version.
ALPHA = 0.01


def upper_p(z: float) -> float:
    """P(Z >= z) for a standard normal Z: the one-sided p-value of a z statistic."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def upper_t(t: float, df: int) -> float:
    """P(T >= t) for Student's t with ``df`` degrees of freedom (the normal's for df of
    1,000 and more): 0.5 I_x(df/2, 1/2) at x = df / (df + t^2) on the side of ``t``."""
    if df >= 1000:
        return upper_p(t)
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction
    (modified Lentz), on the side where it converges fast."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _fraction(a, b, x) / a
    return 1.0 - front * _fraction(b, a, 1.0 - x) / b


def _fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    value = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            value *= c * d
        if abs(c * d - 1.0) < 1e-14:
            break
    return value


def holm(p_values: Mapping[K, float], alpha: float = ALPHA) -> dict[K, float]:
    """Each key's threshold under Holm's procedure; a key is flagged when its p-value is at
    most its threshold. Keys past the first that misses get the threshold they would have
    needed (reported as evidence) but are never flagged: ``flagged`` says which are."""
    order = sorted(p_values, key=lambda k: p_values[k])
    count = len(order)
    return {key: alpha / (count - rank) for rank, key in enumerate(order)}


def flagged(p_values: Mapping[K, float], alpha: float = ALPHA) -> set[K]:
    """The keys Holm's procedure rejects at family-wise error ``alpha``: in order of
    p-value, each while its p-value is within its threshold."""
    thresholds = holm(p_values, alpha)
    found: set[K] = set()
    for key in sorted(p_values, key=lambda k: p_values[k]):
        if p_values[key] > thresholds[key]:
            break
        found.add(key)
    return found
