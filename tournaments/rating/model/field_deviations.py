"""Every bot's joint deviation against the field's mean at once, for the stored field view.

``Field.deviation(bot)`` is c' H^-1 c for c = e_i - 1/n: one conjugate-gradient solve in
plain Python, fine for a page that asks about a few bots. The field pass asks it of every
bot of a game, and at 2,500 bots one solve takes seconds (3.4 s measured; the whole field
would take hours). Written out, the contrast's variance is

    (H^-1)_ii - (2/n) (H^-1 1)_i + (1/n^2) 1' H^-1 1,

so all of them need only the diagonal of H^-1 and its row sums: one inversion of the
field's precision matrix, dense, by LAPACK through numpy (cubic in the bots: a few seconds
at 2,500 bots, 50 MB per matrix; docs/ratings.md gives the figure). Plain numbers in and
out: no database, nothing of ``rating.model.field`` beyond its public ``Field``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

from tournaments.rating.model.field import Field

K = TypeVar("K", bound=Hashable)


def against_mean(found: Field[K]) -> dict[K, float]:
    """Each bot's deviation (Elo) measured from the field's mean, as ``found.deviation``
    gives it one bot at a time."""
    keys, covariance = joint_covariance(found)
    if not keys:
        return {}
    sums = covariance.sum(axis=1)
    n = len(keys)
    variances = np.diagonal(covariance) - 2.0 * sums / n + sums.sum() / (n * n)
    return {k: math.sqrt(max(float(v), 0.0)) for k, v in zip(keys, variances, strict=True)}


def differences(found: Field[K], pairs: Sequence[tuple[K, K]]) -> list[float]:
    """The deviation (Elo) of each pair's difference, as ``found.difference`` gives it one
    pair at a time: sqrt(C_aa + C_bb - 2 C_ab) of the one inversion."""
    keys, covariance = joint_covariance(found)
    index = {k: i for i, k in enumerate(keys)}
    found_deviations = []
    for a, b in pairs:
        i, j = index[a], index[b]
        variance = covariance[i, i] + covariance[j, j] - 2.0 * covariance[i, j]
        found_deviations.append(math.sqrt(max(float(variance), 0.0)))
    return found_deviations


def joint_covariance(found: Field[K]) -> tuple[list[K], np.ndarray]:
    """The field's bots and their joint covariance (Elo^2), in that order: the inverse
    of the precision matrix."""
    keys = list(found.elo)
    if not keys:
        return keys, np.zeros((0, 0))
    return keys, np.linalg.inv(_dense(found, keys))


def _dense(found: Field[K], keys: list[K]) -> np.ndarray:
    """The field's sparse precision matrix as a dense array in the order of ``keys``."""
    index = {k: i for i, k in enumerate(keys)}
    rows, columns, values = [], [], []
    for k, row in found.matrix.items():
        for j, weight in row.items():
            rows.append(index[k])
            columns.append(index[j])
            values.append(weight)
    matrix = np.zeros((len(keys), len(keys)))
    matrix[rows, columns] = values
    return matrix
