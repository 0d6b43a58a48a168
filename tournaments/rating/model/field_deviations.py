"""Every bot's joint deviation against the field's mean at once, for the stored field view.

``Field.deviation(bot)`` is c' H^-1 c for c = e_i - 1/n: one conjugate-gradient solve.
The field pass asks it of every bot of a game. Written out, the contrast's variance is

    (H^-1)_ii - (2/n) (H^-1 1)_i + (1/n^2) 1' H^-1 1,

the diagonal of M = P H^-1 P (P = I - 11'/n, which takes the field's mean away).

Up to DENSE_BOTS bots the covariance is exact: one inversion of the field's precision
matrix, dense, by LAPACK through numpy. Above, a dense inversion is cubic in the bots and
quadratic in memory (20,000 bots: 3.2 GB a matrix, hours), so the diagonal of M is
estimated by probing (Tang and Saad's probing of a matrix function's diagonal, with
Hutchinson's random signs): the bots are coloured so that no two that met share a colour
(about as many colours as a bot has opponents), and for each colour one solve with H of
the random signs of that colour's bots gives, for each of them, its own entry of M exactly
up to the entries it shares with other bots of its colour: bots that never met, whose
covariance is a small fraction of a variance. Several draws of the signs (PROBE_COLUMNS) average
that rest. The cost is the colours times the repeats of sparse solves, all at once: linear
in the records. bench.ratings.field_pass prints the largest difference from the exact
deviations where both run.

The deviations count the prior's pull over a field as spread as this one
(``field_spread``): the covariance is H^-1 - shrink H^-2. Dense, that is one
eigendecomposition (its spread comes from the same); probed, each probe's squared
entries summed over its colours estimate the diagonal of H^-2 as its products estimate
H^-1's (Hutchinson's estimate of a square's diagonal).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

from tournaments.rating.model import field_spread
from tournaments.rating.model import field_system as system
from tournaments.rating.model.field import Field
from tournaments.rating.model.field_covariance import (
    DENSE_BOTS,
    Covariance,
    Dense,
    Probed,
)

K = TypeVar("K", bound=Hashable)


def against_mean(found: Field[K], exact: bool | None = None) -> dict[K, float]:
    """Each bot's deviation (Elo) measured from the field's mean, as ``found.deviation``
    gives it one bot at a time: exact up to DENSE_BOTS bots (or as ``exact`` says),
    probed above."""
    if not found.keys:
        return {}
    variances = covariance(found, exact).variances()
    return {k: math.sqrt(max(float(v), 0.0)) for k, v in zip(found.keys, variances, strict=True)}


def differences(found: Field[K], pairs: Sequence[tuple[K, K]]) -> list[float]:
    """The deviation (Elo) of each pair's difference, as ``found.difference`` gives it one
    pair at a time: sqrt(C_aa + C_bb - 2 C_ab), the pairs' contrasts solved at once."""
    if not pairs:
        return []
    if isinstance(found.joint, Dense):
        rows = np.asarray([found.index[a] for a, _ in pairs])
        columns = np.asarray([found.index[b] for _, b in pairs])
        joint = found.joint.matrix
        kept = joint[rows, rows] + joint[columns, columns] - 2.0 * joint[rows, columns]
        return [math.sqrt(max(float(v), 0.0)) for v in kept]
    contrasts = np.zeros((len(found.keys), len(pairs)))
    for column, (a, b) in enumerate(pairs):
        contrasts[found.index[a], column] += 1.0
        contrasts[found.index[b], column] -= 1.0
    solved = system.solve(found.posterior, contrasts)
    variances = np.einsum("ij,ij->j", contrasts, solved)
    variances -= found.shrink * np.einsum("ij,ij->j", solved, solved)
    return [math.sqrt(max(float(v), 0.0)) for v in variances]


def covariance(found: Field[K], exact: bool | None = None) -> Covariance:
    """The field's covariance at its spread (``Field.shrink``): the one the pass kept
    (``Field.joint``), else dense and exact up to DENSE_BOTS bots (or as ``exact`` says),
    probed above."""
    if exact is None and isinstance(found.joint, Covariance):
        return found.joint
    if exact if exact is not None else len(found.keys) <= DENSE_BOTS:
        if found.penalised is not None and found.sandwich:
            return Dense.sandwich(
                found.penalised, found.csr, found.shrink, found.sandwich, found.fitted_penalty
            )
        if found.shrink == 0.0:
            return Dense(np.linalg.inv(found.posterior.toarray()))
        return Dense.of(*field_spread.spectrum(found.posterior.toarray()), found.shrink)
    return Probed.of(found.posterior, shrink=found.shrink)


def with_spread(found: Field[K]) -> Field[K]:
    """``found`` with its own spread measured (``field_spread``) and its covariance at that
    spread kept for ``against_mean``: one eigendecomposition up to DENSE_BOTS bots, above
    one probing and the spread one EM step from the prior's."""
    if not found.keys:
        return found
    elo = np.fromiter((found.elo[k] for k in found.keys), float, len(found.keys))
    joint: Covariance
    if len(found.keys) <= DENSE_BOTS:
        values, vectors = field_spread.spectrum(found.csr.toarray())
        spread = field_spread.fitted_spread(values, vectors, elo)
        shrink = field_spread.shrink(spread)
        if found.penalised is None:
            joint = Dense.of(values, vectors, shrink)
        elif found.sandwich:
            joint = Dense.sandwich(
                found.penalised, found.csr, shrink, found.sandwich, found.fitted_penalty
            )
        else:
            joint = Dense.penalised(found.penalised, shrink)
    else:
        probed = Probed.of(found.posterior)
        spread = field_spread.one_step_spread(elo, probed.variances())
        joint = dataclasses.replace(probed, shrink=field_spread.shrink(spread))
    return dataclasses.replace(found, spread=spread, joint=joint)
