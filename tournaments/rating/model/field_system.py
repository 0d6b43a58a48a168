"""The field's records as arrays, and its sparse linear algebra (issue 47).

``rating.model.field`` states the model on dicts keyed by bot; this module holds the same
numbers as numpy arrays so that one Newton step of the whole field costs a few vectorised
passes over its records: the gradient, the precision matrix as a scipy.sparse CSR matrix
(one entry per pair that met) and conjugate-gradient solves, several right-hand sides at
once. Nothing here is ever dense: memory and time are linear in the field's records (a
20,000-bot game of 60 opponents each holds 1.2 million records; docs/ratings.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Generic, TypeVar

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

from tournaments.rating.model.global_rating import _S
from tournaments.rating.model.results import START_ELO
from tournaments.rating.model.skill import FIELD_PRIOR_DEVIATION

K = TypeVar("K", bound=Hashable)

#: A solve stops once every column's residual is this small against its right-hand side
#: (the variance is then exact to far below an Elo point).
TOLERANCE = 1e-10
#: At most this many iterations per solve: the diagonal preconditioner leaves the
#: condition of a ladder's long chain of neighbours, a few hundred iterations at 20,000
#: bots (bench.ratings.field_pass prints them).
MAX_ITERATIONS = 5_000


@dataclass(frozen=True)
class Links(Generic[K]):
    """Every record of the field: its bot's index in ``keys`` (``bot``), the index of the
    field's bot it is against or -1 for an opponent outside the field (``other``), its
    results, score and the rating it was last met at (``seen``), and its bot's
    tempering (the dispersion its information is divided by)."""

    keys: list[K]
    bot: np.ndarray
    other: np.ndarray
    results: np.ndarray
    score: np.ndarray
    seen: np.ndarray
    tempering: np.ndarray
    #: The precision's sparsity pattern where the caller keeps one for these bot and
    #: other columns (``field.Stored``: one for every dispersion); else built once here.
    structure: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: The prior's deviation around the start (Elo): FIELD_PRIOR_DEVIATION but where the
    #: experiment ``field_dispersion.MEASURE_AT_SPREAD`` fits at the field's own spread.
    prior: float = FIELD_PRIOR_DEVIATION

    @staticmethod
    def of(
        keys: list[K], rows: Iterable[tuple[K, K | None, float, float, float, float]]
    ) -> Links[K]:
        """The links of ``rows`` (bot, bot of the field it is against or None, results,
        score, seen, tempering)."""
        index = {k: i for i, k in enumerate(keys)}
        columns: list[list[float]] = [[], [], [], [], [], []]
        for bot, other, results, score, seen, tempering in rows:
            for column, value in zip(
                columns,
                (
                    index[bot],
                    -1 if other is None else index[other],
                    results,
                    score,
                    seen,
                    tempering,
                ),
                strict=True,
            ):
                column.append(value)
        ints = [np.asarray(c, dtype=np.int64) for c in columns[:2]]
        floats = [np.asarray(c, dtype=float) for c in columns[2:]]
        return Links(keys, ints[0], ints[1], floats[0], floats[1], floats[2], floats[3])

    def vector(self, values: Mapping[K, float]) -> np.ndarray:
        return np.fromiter((values[k] for k in self.keys), float, len(self.keys))

    @cached_property
    def pattern(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The precision matrix's CSR structure (``structure``)."""
        if self.structure is not None:
            return self.structure
        return sparsity(len(self.keys), self.bot, self.other)


def sparsity(
    n: int, bot: np.ndarray, other: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The precision matrix's CSR structure (indptr, indices) and the place in its values
    of each term ``gradient_and_precision`` adds (the diagonal, then each record within
    the field on both sides): the same at every Newton step and for every dispersion,
    so built once a field (a COO-to-CSR conversion a step was 20 of a 20,000-bot pass's
    200 s profiled)."""
    inside = other >= 0
    a, b = bot[inside], other[inside]
    rows = np.concatenate([np.arange(n), a, b])
    columns = np.concatenate([np.arange(n), b, a])
    cells, place = np.unique(rows * n + columns, return_inverse=True)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(cells // n, minlength=n), out=indptr[1:])
    return indptr, cells % n, place


def gradient_and_precision(links: Links[K], elo: np.ndarray) -> tuple[np.ndarray, sparse.csr_array]:
    """The field's log-posterior's gradient and negated curvature (Elo^-2) at ratings
    ``elo``, its prior ``links.prior`` (FIELD_PRIOR_DEVIATION) around the start: each
    record informs its bot alone against an opponent outside the field, or counts half from
    each side of a pair within it (each holds one, the mirror of the other's)."""
    n = len(links.keys)
    prior = 1.0 / links.prior**2
    inside = links.other >= 0
    against = np.where(inside, elo[np.maximum(links.other, 0)], links.seen)
    expected = 1.0 / (1.0 + np.exp(_S * (against - elo[links.bot])))
    share = np.where(inside, 0.5, 1.0) / links.tempering
    slope = share * _S * (links.score - links.results * expected)
    weight = share * _S * _S * links.results * expected * (1.0 - expected)
    gradient = -(elo - START_ELO) * prior
    gradient += np.bincount(links.bot, slope, n)
    gradient -= np.bincount(links.other[inside], slope[inside], n)
    diagonal = prior + np.bincount(links.bot, weight, n)
    diagonal += np.bincount(links.other[inside], weight[inside], n)
    w = weight[inside]
    indptr, indices, place = links.pattern
    values = np.bincount(place, np.concatenate([diagonal, -w, -w]), len(indices))
    return gradient, sparse.csr_array((values, indices, indptr), shape=(n, n))


def solve(
    matrix: sparse.csr_array, vectors: np.ndarray, tolerance: float = TOLERANCE
) -> np.ndarray:
    """X with matrix X = vectors (one column or several) for a symmetric positive definite
    sparse ``matrix``: conjugate gradients preconditioned by the diagonal, every column at
    once (one sparse product per iteration for all of them)."""
    if vectors.size == 0:
        return np.zeros_like(vectors)
    b = vectors.reshape(len(vectors), -1)
    inverse_diagonal = (1.0 / matrix.diagonal())[:, None]
    x = np.zeros_like(b)
    r = b.copy()
    z = r * inverse_diagonal
    p = z.copy()
    rz = np.einsum("ij,ij->j", r, z)
    goal = tolerance * np.linalg.norm(b, axis=0)
    for _ in range(MAX_ITERATIONS):
        if np.all(np.linalg.norm(r, axis=0) <= goal):
            break
        q = matrix @ p
        pq = np.einsum("ij,ij->j", p, q)
        alpha = np.divide(rz, pq, out=np.zeros_like(rz), where=pq > 0.0)
        x += alpha * p
        r -= alpha * q
        z = r * inverse_diagonal
        before, rz = rz, np.einsum("ij,ij->j", r, z)
        beta = np.divide(rz, before, out=np.zeros_like(rz), where=before > 0.0)
        p = z + beta * p
    return x.reshape(vectors.shape)


def refit(links: Links[K], elo: np.ndarray, steps: int, converged: float) -> np.ndarray:
    """The ratings that best explain every record at once: Newton's method from ``elo``,
    each step one sparse solve, steps capped at 400 points."""
    elo = elo.copy()
    for _ in range(steps):
        gradient, matrix = gradient_and_precision(links, elo)
        step = solve(matrix, gradient)
        elo += np.clip(step, -400.0, 400.0)
        if float(np.max(np.abs(step), initial=0.0)) < converged:
            break
    return elo


def contrast_variance(
    matrix: sparse.csr_array,
    contrast: np.ndarray,
    shrink: float = 0.0,
    records: sparse.csr_array | None = None,
    share: float = 0.0,
    fitted: sparse.csr_array | None = None,
) -> float:
    """c' H^-1 c - shrink |H^-1 c|²: the variance (Elo^2) of the combination ``contrast``
    of ratings (``field_spread``: less the prior's pull beyond the field's own spread).
    With ``records`` (R), ``share`` (w) and ``fitted`` (G, H where None): w c'G^-1 R G^-1 c
    + (1 - w) c'H^-1 c less the same pull, as ``field_covariance.Dense.sandwich`` reads a
    penalised fit."""
    solved = solve(matrix, contrast)
    variance = float(contrast @ solved)
    if records is not None and share:
        own = solved if fitted is None else solve(fitted, contrast)
        variance = share * float(own @ (records @ own)) + (1.0 - share) * variance
    return max(variance - shrink * float(solved @ solved), 0.0)
