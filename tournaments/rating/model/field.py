"""Joint uncertainty of the global rating over the linked field (issue 30).

Each bot's stored deviation (``global_rating.Skill.variance``) is the inverse of its own
curvature with every opponent's rating taken as known. That is honest only when the
opponents are well measured. It is too narrow when they are not: a ladder that plays
neighbours splits into clusters joined by a few games, and a cluster as a whole may sit
too high or too low. It is too wide for a closed field measured from its own mean: a
round robin of n bots knows each bot's place against the others with ((n - 1) / n)^2 of
the variance it would have against fixed opponents.

The joint answer, as whole-history rating (Coulom's WHR) and TrueSkill Through Time take
it, is the curvature of the whole fit: the precision matrix H of all the bots of the
field together, each bot's own precision on the diagonal (``1 / variance``, its
tempering for dispersion included) and, off it, minus the information each pair's
records carry about both. The variance of any contrast c of ratings (a difference, or a
bot against the field's mean) is c' H^-1 c. H is sparse (one entry per pair that has
met) and diagonally dominant, so one contrast costs one conjugate-gradient solve.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

from tournaments.rating.model import field_system as system
from tournaments.rating.model.global_rating import _S, CONVERGED, NEWTON_STEPS
from tournaments.rating.model.results import Z95, Record
from tournaments.rating.model.skill import START_DEVIATION, Skill

K = TypeVar("K", bound=Hashable)

Sparse = dict[K, dict[K, float]]
#: Each bot's tempering where the caller measured it (``rating.model.field_dispersion``); a bot
#: it leaves out, or None for all: the stored one's.
Dispersion = Mapping[K, float] | None


@dataclass(frozen=True)
class Difference:
    """Is A better than B? ``estimate``: A's rating less B's (Elo); ``deviation``: its
    standard deviation, both bots' opponents' uncertainty included; ``low``..``high``:
    the 95% interval of the difference; ``probability``: that A is the stronger."""

    estimate: float
    deviation: float
    low: float
    high: float
    probability: float


def _pair_weight(me: Skill, record: Record, other_elo: float) -> float:
    """The model's information (per Elo squared) in a bot's record of one opponent rated
    ``other_elo``."""
    expected = 1.0 / (1.0 + math.exp(_S * (other_elo - me.elo)))
    return _S * _S * record.results * expected * (1.0 - expected)


def _tempering(skill: Skill) -> float:
    """The dispersion the bot's stored variance divided its information by: its records'
    information at the ratings it saw them at over its precision beyond the prior (so the
    joint precision's diagonal is exactly the stored one)."""
    data = 1.0 / skill.variance - 1.0 / START_DEVIATION**2
    seen = sum(_pair_weight(skill, r, r.seen) for r in skill.records.values())
    if data <= 0.0 or seen <= 0.0:
        return 1.0
    return seen / data


def _links(
    skills: Mapping[K, Skill], keys: Mapping[Any, K] | None, dispersion: Dispersion[K]
) -> system.Links[K]:
    """Every record of the field as arrays (``field_system.Links``): its bot, the bot of
    ``skills`` it is against (none for an opponent outside the field, fixed where it was
    last met), the record and the bot's tempering (from ``dispersion`` where it gives
    the bot's, else the stored one's)."""

    def rows() -> Iterator[tuple[K, K | None, float, float, float, float]]:
        for bot, skill in skills.items():
            given = dispersion.get(bot) if dispersion is not None else None
            tempering = given if given is not None else _tempering(skill)
            for key, record in skill.records.items():
                other = keys.get(key) if keys is not None else key
                if other == bot or other not in skills:
                    other = None
                yield bot, other, record.results, record.score, record.seen, tempering

    return system.Links.of(list(skills), rows())


def precision(skills: Mapping[K, Skill], keys: Mapping[Any, K] | None = None) -> Sparse[K]:
    """The joint precision matrix (Elo^-2) of the bots of ``skills`` at their ratings now,
    sparse by rows: the negated curvature of the field's log-posterior (``refit``).

    ``keys`` maps a record's key (an opponent version) to the bot it rates (default: the
    key itself); a record of a version not mapped to a bot of ``skills`` informs the bot
    alone, the opponent fixed where it was last met. A record between two bots of the
    field counts half from each side (each holds one, the mirror of the other's)."""
    return _gradient_and_precision(skills, keys, {b: s.elo for b, s in skills.items()}, None)[1]


def _gradient_and_precision(
    skills: Mapping[K, Skill],
    keys: Mapping[Any, K] | None,
    elo: Mapping[K, float],
    dispersion: Dispersion[K] = None,
) -> tuple[dict[K, float], Sparse[K]]:
    """The field's log-posterior's gradient and negated curvature at ratings ``elo``."""
    links = _links(skills, keys, dispersion)
    gradient, matrix = system.gradient_and_precision(links, links.vector(elo))
    return dict(zip(links.keys, gradient.tolist(), strict=True)), _rows(links.keys, matrix)


def _rows(keys: list[K], matrix: sparse.csr_array) -> Sparse[K]:
    """A CSR matrix as a dict of rows, keyed by ``keys``."""
    found: Sparse[K] = {}
    for i, k in enumerate(keys):
        start, end = matrix.indptr[i], matrix.indptr[i + 1]
        columns, values = matrix.indices[start:end].tolist(), matrix.data[start:end].tolist()
        found[k] = {keys[j]: v for j, v in zip(columns, values, strict=True)}
    return found


def refit(
    skills: Mapping[K, Skill],
    keys: Mapping[Any, K] | None = None,
    dispersion: Dispersion[K] = None,
    start: Mapping[K, float] | None = None,
) -> dict[K, float]:
    """The ratings that best explain every record of the field at once (the whole-history
    fit of the records kept): Newton's method from ``start`` (default: the stored
    ratings), each step one sparse solve; steps capped at 400 points."""
    links = _links(skills, keys, dispersion)
    return dict(zip(links.keys, _refit(links, skills, start).tolist(), strict=True))


def _refit(
    links: system.Links[K], skills: Mapping[K, Skill], start: Mapping[K, float] | None
) -> np.ndarray:
    begin = links.vector(start if start is not None else {b: s.elo for b, s in skills.items()})
    return system.refit(links, begin, NEWTON_STEPS, CONVERGED)


@dataclass(frozen=True)
class Field(Generic[K]):
    """The field's ratings (``elo``) and their joint precision at them (``csr``, a CSR
    matrix in the order of ``keys``); ``dispersion``: each bot's tempering where it was
    given (else the stored one's)."""

    elo: Mapping[K, float]
    keys: list[K]
    csr: sparse.csr_array
    dispersion: Mapping[K, float] | None = None

    @cached_property
    def matrix(self) -> Sparse[K]:
        """The joint precision as a dict of rows (for fields of tens of bots)."""
        return _rows(self.keys, self.csr)

    @cached_property
    def index(self) -> dict[K, int]:
        return {k: i for i, k in enumerate(self.keys)}

    def contrast(self, weights: Mapping[K, float]) -> np.ndarray:
        """The combination ``weights`` of ratings as a vector in the order of ``keys``."""
        found = np.zeros(len(self.keys))
        for k, w in weights.items():
            found[self.index[k]] += w
        return found

    def difference(self, a: K, b: K) -> Difference:
        """A's rating less B's, with its joint uncertainty."""
        estimate = self.elo[a] - self.elo[b]
        contrast = self.contrast({a: 1.0}) - self.contrast({b: 1.0})
        deviation = math.sqrt(system.contrast_variance(self.csr, contrast))
        if deviation > 0.0:
            probability = _normal_cdf(estimate / deviation)
        else:
            probability = 1.0 if estimate > 0.0 else 0.0 if estimate < 0.0 else 0.5
        half = Z95 * deviation
        return Difference(estimate, deviation, estimate - half, estimate + half, probability)

    def covariance(self) -> dict[K, dict[K, float]]:
        """The whole joint covariance (Elo^2): one solve for every bot (for fields of tens
        of bots; a page needs only ``difference`` or ``deviation``)."""
        found = system.solve(self.csr, np.eye(len(self.keys)))
        return {
            k: dict(zip(self.keys, found[:, i].tolist(), strict=True))
            for i, k in enumerate(self.keys)
        }

    def deviation(self, bot: K) -> float:
        """The deviation of the bot's rating measured from the field's mean: the
        uncertainty of its place against the others."""
        contrast = self.contrast({bot: 1.0}) - 1.0 / len(self.keys)
        return math.sqrt(system.contrast_variance(self.csr, contrast))


def field_of(
    skills: Mapping[K, Skill],
    keys: Mapping[Any, K] | None = None,
    whole: bool = True,
    dispersion: Dispersion[K] = None,
    start: Mapping[K, float] | None = None,
) -> Field[K]:
    """The field of ``skills``: refitted as a whole (``refit``, from ``start``) when
    ``whole``, else at the stored ratings; with the joint precision at those ratings.
    ``dispersion``: each bot's tempering, where measured (else its stored one's)."""
    links = _links(skills, keys, dispersion)
    if whole:
        elo = _refit(links, skills, start)
    else:
        elo = links.vector({b: s.elo for b, s in skills.items()})
    matrix = system.gradient_and_precision(links, elo)[1]
    return Field(dict(zip(links.keys, elo.tolist(), strict=True)), links.keys, matrix, dispersion)


def solve(matrix: Sparse[K], vector: Mapping[K, float]) -> dict[K, float]:
    """x with matrix x = vector, for a symmetric positive definite sparse ``matrix`` given
    by rows (``field_system.solve``)."""
    keys = list(matrix)
    index = {k: i for i, k in enumerate(keys)}
    rows = [index[k] for k, row in matrix.items() for _ in row]
    columns = [index[j] for row in matrix.values() for j in row]
    values = [w for row in matrix.values() for w in row.values()]
    csr = sparse.csr_array((values, (rows, columns)), shape=(len(keys), len(keys)))
    found = system.solve(csr, np.fromiter((vector.get(k, 0.0) for k in keys), float, len(keys)))
    return dict(zip(keys, found.tolist(), strict=True))


def contrast_variance(matrix: Sparse[K], contrast: Mapping[K, float]) -> float:
    """c' H^-1 c: the variance (Elo^2) of the combination ``contrast`` of ratings."""
    x = solve(matrix, contrast)
    return max(sum(c * x[k] for k, c in contrast.items()), 0.0)


def difference(
    a: K, b: K, skills: Mapping[K, Skill], keys: Mapping[Any, K] | None = None
) -> Difference:
    """Is A better than B? Their difference as the whole field's records tell it."""
    return field_of(skills, keys).difference(a, b)


def _normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))
