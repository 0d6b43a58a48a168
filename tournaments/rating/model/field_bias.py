"""The field fit's small-sample bias, taken away by Firth's adjusted score (issue 47).

On in the service since issue 47's one rating (``field_dispersion.REDUCE_BIAS``). At a
few plays a bot the maximum-likelihood ratings are spread wider than the truth (the
logistic fit's bias of order 1/n, away from the centre), so the information read at them
is too small and the dispersion measured there too large (bench.ratings.dispersion_bias:
1.11-1.29 times the truth's at 5 plays), and a two-seat field's errors carry that bias
besides their noise.
Firth (1993) removes the bias's first order by adding to the score half the gradient of
log det I (Jeffreys' prior as a penalty); for a binomial record that is the same as
adding h / 2 wins and h / 2 losses, h its leverage (Kosmidis and Firth 2021). Those are
the pairwise likelihood's own (dispersion 1): S² n p(1-p) x'Cx / d for a record of n
results tempered by the dispersion d, C the field's covariance (which d widens) and x the
record's contrast (the pair's difference, or its bot alone against a fixed opponent). A
unit of several seats is dispersed because its pairs go together, not because each pair
varies more, so its pairs' bias does not grow with d: scaled by it (S² n p(1-p) x'Cx,
the quasi-likelihood's form), the six-seat fields of 12 and 50 bots read 0.910-0.927 at
5 plays (docs/ratings.md, "Firth's bias-reduced fit ... tried").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from typing import TypeVar

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

from tournaments.rating.model import field_system as system
from tournaments.rating.model.field_covariance import DENSE_BOTS, Covariance, Dense, Probed
from tournaments.rating.model.global_rating import _S

K = TypeVar("K", bound=Hashable)

#: Rounds of the fixed point (leverages at the ratings, then the ratings at them): the
#: leverages move little between rounds, as the ratings' bias is a fraction of their
#: deviation.
ROUNDS = 4
#: Up to this many bots each round reads the leverages at its own ratings (an inversion
#: of milliseconds); above, one covariance a fit, read at its first round, serves every
#: round and the posterior (``penalised``): a dense inversion of thousands of bots, or a
#: probing above ``DENSE_BOTS``, costs seconds, and the leverages move little.
ROUNDS_EXACT_BOTS = 300
#: An experiment, off (0): the deviations of a bias-reduced fit weigh in, by this share,
#: its noise with the penalty held fixed, (H + J)^-1 H (H + J)^-1
#: (``field_covariance.Dense.sandwich``), beside the penalised posterior (H + J)^-1, which
#: is wider than Firth's error on closed and open fields (two-seat fields of 8 at 5 plays:
#: z sd 0.90-0.95; 1, the sandwich alone, reads them 1.06). Dense fields only;
#: ``calibration_ladder --firth-sandwich W``.
SANDWICH = 0.0
#: A two-seat field of SANDWICH_FROM bots or fewer whose tables no matchmaker chose weighs
#: in this share of that noise, falling linearly to none at SANDWICH_TO bots (issue 47).
#: The penalised posterior alone is wide on small closed and open two-seat fields at 5
#: plays (the real closed field of 8 covered 0.971, z sd 0.92); a large field, a ladder,
#: whose matchmaker seats bots of near estimates together so that their errors line up,
#: and tables of 4 and 6, centred under it, need all of its width (docs/ratings.md, "Small
#: fields weigh in Firth's noise").
SANDWICH_SMALL = 0.6
SANDWICH_FROM = 12
SANDWICH_TO = 50


def sandwich_share(bots: int, chosen: float = 0.0, paired: float = 1.0) -> float:
    """The share of the penalty-fixed noise in the deviations of a field of ``bots``,
    ``chosen`` the share of its units a matchmaker seated (the ladder's) and ``paired``
    the share of two seats: SANDWICH where set (the whole-field experiment), else
    SANDWICH_SMALL falling with the field's size, the matchmaker's share and the tables
    of more seats."""
    if SANDWICH:
        return SANDWICH
    falling = min(max((SANDWICH_TO - bots) / (SANDWICH_TO - SANDWICH_FROM), 0.0), 1.0)
    free = 1.0 - min(max(chosen, 0.0), 1.0)
    return SANDWICH_SMALL * falling * free * min(max(paired, 0.0), 1.0)


def adjusted(
    links: system.Links[K],
    elo: np.ndarray,
    matrix: sparse.csr_array,
    scale: float = 1.0,
    variance: np.ndarray | None = None,
) -> system.Links[K]:
    """``links`` with each record's pseudo-results (half of them won) at ratings ``elo``,
    ``matrix`` the field's precision there, times ``scale`` (``field_dispersion.
    FIRTH_SCALES``). ``variance``: each record's contrast's, where a caller has them
    (``record_variances``: one probing reused by a fit's rounds)."""
    if variance is None:
        variance = record_variances(links, matrix)
    inside = links.other >= 0
    other = np.maximum(links.other, 0)
    against = np.where(inside, elo[other], links.seen)
    expected = 1.0 / (1.0 + np.exp(_S * (against - elo[links.bot])))
    information = _S * _S * links.results * expected * (1.0 - expected)
    extra = information * variance * scale / links.tempering
    return dataclasses.replace(links, results=links.results + extra, score=links.score + extra / 2)


def record_variances(links: system.Links[K], matrix: sparse.csr_array) -> np.ndarray:
    """x'Cx for each record's contrast x (its pair's difference, or its bot alone against
    an opponent outside the field), C the inverse of ``matrix``: dense and exact up to
    DENSE_BOTS bots, probed above (``field_covariance.Probed``: a bot alone then reads its
    variance against the field's mean, a little less than its own)."""
    covariance: Covariance
    if len(links.keys) <= DENSE_BOTS:
        covariance = Dense(np.linalg.inv(matrix.toarray()))
    else:
        covariance = Probed.of(matrix)
    inside = links.other >= 0
    other = np.maximum(links.other, 0)
    pair = covariance.entries(other, other) - 2.0 * covariance.entries(links.bot, other)
    found = covariance.entries(links.bot, links.bot) + np.where(inside, pair, 0.0)
    return np.maximum(found, 0.0)


def refit(
    links: system.Links[K], elo: np.ndarray, steps: int, converged: float, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray | None]:
    """Firth's ratings from the fit ``elo``: ROUNDS of the pseudo-results at the
    ratings, then the ratings refitted with them (``field_system.refit``); and, above
    ROUNDS_EXACT_BOTS, the records' variances its rounds shared (read once, at the
    first round), for the posterior (``penalised``) to reuse."""
    variance = None
    kept = len(links.keys) > ROUNDS_EXACT_BOTS
    for _ in range(ROUNDS):
        matrix = system.gradient_and_precision(links, elo)[1]
        if variance is None or not kept:
            variance = record_variances(links, matrix)
        elo = system.refit(adjusted(links, elo, matrix, scale, variance), elo, steps, converged)
    return elo, variance if kept else None


def penalised(
    links: system.Links[K],
    elo: np.ndarray,
    matrix: sparse.csr_array,
    scale: float = 1.0,
    variance: np.ndarray | None = None,
) -> sparse.csr_array:
    """The precision of the records with their pseudo-results at Firth's ratings ``elo``
    (``matrix`` the records' own there, H): H + J, J the pseudo-results' information. Its
    inverse is the penalised fit's posterior covariance, narrower than H^-1 as the
    penalty pulls each rating in (``field_covariance.Dense.penalised``). ``variance``:
    the records' variances where the fit kept them (``refit``), else read at ``elo``."""
    adjusted_links = adjusted(links, elo, matrix, scale, variance)
    return system.gradient_and_precision(adjusted_links, elo)[1]
