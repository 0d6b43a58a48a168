"""The field's covariance, the inverse of its precision matrix: dense and exact up to
DENSE_BOTS bots, probed above (``Probed``; ``field_deviations`` says how). Apart from the
field's deviations so that the fit itself can use it (``field_bias``: Firth's leverages)
without an import cycle."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

from tournaments.rating.model import field_system as system

#: Up to this many bots the deviations are exact (one dense inversion: 2 s and 72 MB a
#: matrix at 3,000 bots); above, probed.
DENSE_BOTS = 3_000
#: Probes solved at once: as many draws of the random signs as fit (each draw one probe
#: per colour), and at least MIN_REPEATS; each draw more divides what is left of the
#: rest's noise by sqrt(draws) (bench.ratings.field_pass prints the largest difference).
PROBE_COLUMNS = 128
MIN_REPEATS = 2
#: The probes' solves stop at this residual against the right-hand side: their noise is
#: far above it.
PROBE_TOLERANCE = 1e-6


class Covariance:
    """The field's joint covariance where the field pass reads it: each bot's variance
    against the mean, and the block of a few bots (for a contrast of them)."""

    def variances(self) -> np.ndarray:
        raise NotImplementedError

    def block(self, at: list[int]) -> np.ndarray:
        """The covariance of the bots at ``at`` (indices of the field's keys), good for
        contrasts (weights summing to zero): the mean's own variance may be left out."""
        raise NotImplementedError

    def entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """The entries (rows[k], columns[k]) of the covariance as ``block`` gives them, all
        at once, for quadratic forms (``v' C v`` over a unit's bots: the probed
        estimate's asymmetry, which ``block`` averages away, cancels there too)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Dense(Covariance):
    """The inverse of the precision matrix."""

    matrix: np.ndarray

    @staticmethod
    def of(values: np.ndarray, vectors: np.ndarray, shrink: float) -> Dense:
        """H^-1 - shrink H^-2 from H's spectrum."""
        inverse = 1.0 / values
        return Dense((vectors * (inverse - shrink * inverse * inverse)) @ vectors.T)

    @staticmethod
    def penalised(precision: sparse.csr_array, shrink: float) -> Dense:
        """A - shrink A², A the inverse of the precision with Firth's pseudo-results
        (``field_bias.penalised``): the posterior of the penalised fit, the pseudo-results
        counted as records. (The linearised noise A H A, H without them, read too narrow:
        0.917 at 5 plays on the model's closed two-seat field of 8; H^-1 too wide, z sd 0.92.)"""
        inverse = np.linalg.inv(precision.toarray())
        return Dense(inverse - shrink * inverse @ inverse)

    @staticmethod
    def sandwich(
        precision: sparse.csr_array,
        records: sparse.csr_array,
        shrink: float,
        weight: float = 1.0,
        fitted: sparse.csr_array | None = None,
    ) -> Dense:
        """F H F - shrink A², A the inverse of the precision with Firth's pseudo-results, H
        the records' own and F the inverse of ``fitted``, the records' with the pseudo-results
        the fit itself added (A's where None): the penalised fit's noise, its penalty held
        fixed (for one binomial record of n results, (n / (n + 1))² of the plain fit's
        variance, which is the variance of Firth's (y + 1/2) / (n + 1); A alone reads n /
        (n + 1)); ``weight`` below 1: that share of it and the rest of A
        (``field_bias.sandwich_share``)."""
        inverse = np.linalg.inv(precision.toarray())
        own = inverse if fitted is None else np.linalg.inv(fitted.toarray())
        noise = own @ records.toarray() @ own
        mixed = weight * noise + (1.0 - weight) * inverse
        return Dense(mixed - shrink * inverse @ inverse)

    def variances(self) -> np.ndarray:
        sums = self.matrix.sum(axis=1)
        n = len(sums)
        return np.diagonal(self.matrix) - 2.0 * sums / n + sums.sum() / (n * n)

    def block(self, at: list[int]) -> np.ndarray:
        return self.matrix[np.ix_(np.asarray(at), np.asarray(at))]

    def entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        return self.matrix[rows, columns]


@dataclass(frozen=True)
class Probed(Covariance):
    """M = P H^-1 P probed: for each draw r, ``signs[r]`` (each bot's random sign) and
    ``solved[r]`` (column c: M times the signs of colour c's bots). ``shrink``: the
    variances are M's less shrink times M²'s (``field_spread``); ``block`` and
    ``entries`` stay M's (the dispersion's leverage, on a field fitted without one)."""

    colours: np.ndarray
    signs: list[np.ndarray]
    solved: list[np.ndarray]
    floor: np.ndarray
    shrink: float = 0.0

    @staticmethod
    def of(
        matrix: sparse.csr_array,
        repeats: int | None = None,
        seed: int = 0,
        shrink: float = 0.0,
    ) -> Probed:
        colours = colouring(matrix)
        n, width = len(colours), int(colours.max()) + 1
        if repeats is None:
            repeats = max(MIN_REPEATS, PROBE_COLUMNS // width)
        rng = np.random.default_rng(seed)
        signs = [rng.choice((-1.0, 1.0), n) for _ in range(repeats)]
        probes = np.zeros((n, width * repeats))
        for r, sign in enumerate(signs):
            probes[np.arange(n), r * width + colours] = sign
        probes -= probes.mean(axis=0)
        solved = system.solve(matrix, probes, PROBE_TOLERANCE)
        solved -= solved.mean(axis=0)
        columns = [solved[:, r * width : (r + 1) * width] for r in range(repeats)]
        return Probed(colours, signs, columns, lower_bound(matrix), shrink)

    def variances(self) -> np.ndarray:
        rows = np.arange(len(self.colours))
        found = [s * y[rows, self.colours] for s, y in zip(self.signs, self.solved, strict=True)]
        variances = np.maximum(np.mean(found, axis=0), self.floor)
        if self.shrink == 0.0:
            return variances
        # Each colour's probe holds row i of M at that colour's bots (times their signs):
        # its square, summed over the colours, is (M²)_ii up to the products of a row's
        # entries at bots of one colour, which the random signs average away.
        squares = np.mean([np.sum(y * y, axis=1) for y in self.solved], axis=0)
        return np.maximum(variances - self.shrink * squares, 0.0)

    def block(self, at: list[int]) -> np.ndarray:
        colours = self.colours[at]
        found = [
            y[np.ix_(np.asarray(at), colours)] * s[at]
            for s, y in zip(self.signs, self.solved, strict=True)
        ]
        mean = np.mean(found, axis=0)
        return (mean + mean.T) / 2.0

    def entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        colours = self.colours[columns]
        found = np.zeros(len(rows))
        for s, y in zip(self.signs, self.solved, strict=True):
            found += y[rows, colours] * s[columns]
        return found / len(self.signs)


def lower_bound(matrix: sparse.csr_array) -> np.ndarray:
    """For each bot, a floor under its variance against the mean c' H^-1 c: (c'c)^2 / c'Hc
    (Cauchy-Schwarz), what its own records and its opponents' fixed ratings give alone; a
    probe's noise never takes a deviation below it."""
    n = matrix.shape[0]
    sums = matrix @ np.ones(n)
    quadratic = matrix.diagonal() - 2.0 * sums / n + sums.sum() / (n * n)
    return (1.0 - 1.0 / n) ** 2 / quadratic


def colouring(matrix: sparse.csr_array) -> np.ndarray:
    """A colour for each row of ``matrix`` such that no two rows with an entry between
    them share one (greedy, in order): about as many colours as a row has entries."""
    n = matrix.shape[0]
    colours = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        neighbours = matrix.indices[matrix.indptr[i] : matrix.indptr[i + 1]]
        taken = set(colours[neighbours].tolist())
        colour = 0
        while colour in taken:
            colour += 1
        colours[i] = colour
    return colours
