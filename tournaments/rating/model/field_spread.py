"""How spread a game's field is, and the part of each deviation its prior should not claim
(issue 47). On in the service since the one rating (``field_dispersion.COUNT_SPREAD``):
docs/ratings.md, "The deviation counting the field's own spread, tried", has what it
mends and what it does not, and "The one rating switched on" the settings beside it.

The field pass fits every bot with the prior 1500 +- 500 (``skill.FIELD_PRIOR_DEVIATION``):
wide, so that it pulls a bot far from the field's centre little. Its posterior covariance
H^-1 then counts the prior as if the field's bots really were spread by 500 Elo. Written
out, H^-1 = H^-1 F H^-1 + H^-1 P H^-1 (F the records' information, P = I / 500²): the
first term is the noise of the results, the second the prior's pull, its bias, averaged
over bots spread by 500. A field of 50 model bots is spread by about 160; at 5 plays in a
sparse closed or open field the second term is large, and the intervals covered 0.971-0.977.

So the deviations count the bias over a field spread as this one is: with its spread s,
the mean square of the error is H^-1 F H^-1 + s² H^-1 P² H^-1 = H^-1 - shrink H^-2,
shrink = (1 - s² / 500²) / 500² (``shrink``). The estimates do not change.

The spread is the field's own (empirical Bayes): the s that its ratings and their
uncertainty imply, E[(theta - 1500)²] over its bots, found by the EM fixed point
s² = (PRIOR_BOTS 500² + sum_i [(m_i(s) - 1500)² + C_ii(s)]) / (PRIOR_BOTS + n), m(s) and
C(s) the fit and covariance under the prior 1500 +- s. Under the Laplace approximation
both follow from one eigendecomposition of H, so each iteration is a pass over n numbers.
PRIOR_BOTS keeps a field of a few bots from a spread read off their noise alone.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar

import numpy as np

from tournaments.rating.model.results import START_ELO
from tournaments.rating.model.skill import FIELD_PRIOR_DEVIATION

K = TypeVar("K", bound=Hashable)

#: The prior's own spread (500) counts as much as this many bots' (``calibration_ladder
#: --prior-bots``: 4 lifted an 8-bot two-seat ladder at 5 plays from 0.948 to 0.958).
PRIOR_BOTS = 2.0
#: The fixed point is reached when the spread² moves less than this share.
CONVERGED = 1e-7
MAX_ITERATIONS = 2_000


def shrink(spread: float | None) -> float:
    """What H^-2 is multiplied by and taken off H^-1 (Elo^-2): (1 - s²/500²)/500², zero
    where the spread is unknown or the prior's own. A field spread wider than the prior
    gets a negative shrink: its intervals widen by the pull the prior makes on it."""
    if spread is None:
        return 0.0
    prior = FIELD_PRIOR_DEVIATION**2
    return (1.0 - spread * spread / prior) / prior


def spectrum(precision: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigenvalues and eigenvectors of a (dense) precision matrix."""
    values, vectors = np.linalg.eigh(precision)
    return values, vectors


def fitted_spread(values: np.ndarray, vectors: np.ndarray, elo: np.ndarray) -> float:
    """The field's spread (Elo) around the prior's centre from the spectrum of its
    precision H at the prior 500 and its ratings ``elo`` there (the EM fixed point in
    closed form: the information F = H - P shares H's eigenvectors, so under a prior s
    each rating's component along eigenvector k scales by (f_k + P) / (f_k + 1/s²) and
    the covariance's trace is sum 1 / (f_k + 1/s²))."""
    n = len(elo)
    if n == 0:
        return FIELD_PRIOR_DEVIATION
    prior = 1.0 / FIELD_PRIOR_DEVIATION**2
    information = np.maximum(values - prior, 0.0)
    along = vectors.T @ (elo - START_ELO)
    squared = FIELD_PRIOR_DEVIATION**2
    for _ in range(MAX_ITERATIONS):
        precision = 1.0 / squared
        scaled = along * (information + prior) / (information + precision)
        total = float(scaled @ scaled + np.sum(1.0 / (information + precision)))
        found = (PRIOR_BOTS * FIELD_PRIOR_DEVIATION**2 + total) / (PRIOR_BOTS + n)
        moved = abs(found - squared)
        squared = found
        if moved < CONVERGED * squared:
            break
    return float(np.sqrt(squared))


def one_step_spread(elo: np.ndarray, variances: np.ndarray) -> float:
    """The spread after one EM step from the prior's, for a field too large for its
    spectrum (``field_deviations.DENSE_BOTS``): each step from above comes down toward
    the fixed point, so one step is wider than the fitted spread, never narrower (its
    shrink smaller: intervals a little wide). ``variances``: each bot's against the field's
    mean (its level's own variance left out, small against the sum of a large field)."""
    n = len(elo)
    if n == 0:
        return FIELD_PRIOR_DEVIATION
    total = float(np.sum((elo - START_ELO) ** 2) + np.sum(variances))
    return float(np.sqrt((PRIOR_BOTS * FIELD_PRIOR_DEVIATION**2 + total) / (PRIOR_BOTS + n)))
