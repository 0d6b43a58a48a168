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
from typing import Any, Generic, TypeVar

from tournaments.rating.model.global_rating import _S, CONVERGED, NEWTON_STEPS
from tournaments.rating.model.results import START_ELO, Z95, Record
from tournaments.rating.model.skill import START_DEVIATION, Skill

K = TypeVar("K", bound=Hashable)

#: The conjugate-gradient solve stops once the residual is this small against the
#: right-hand side (the variance is then exact to far below an Elo point).
TOLERANCE = 1e-10
#: At most this many iterations per bot (a field of few clusters converges in a handful).
MAX_ITERATIONS = 500

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
) -> Iterator[tuple[K, K | None, Record, float]]:
    """Every record of the field: its bot, the bot of ``skills`` it is against (None for
    an opponent outside the field, fixed where it was last met), the record and the
    bot's tempering (from ``dispersion`` where it gives the bot's, else the stored one's)."""
    for bot, skill in skills.items():
        given = dispersion.get(bot) if dispersion is not None else None
        tempering = given if given is not None else _tempering(skill)
        for key, record in skill.records.items():
            other = keys.get(key) if keys is not None else key
            if other == bot or other not in skills:
                other = None
            yield bot, other, record, tempering


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
    prior = 1.0 / START_DEVIATION**2
    gradient = {b: -(elo[b] - START_ELO) * prior for b in skills}
    matrix: Sparse[K] = {b: {b: prior} for b in skills}
    for bot, other, record, tempering in _links(skills, keys, dispersion):
        against = record.seen if other is None else elo[other]
        expected = 1.0 / (1.0 + math.exp(_S * (against - elo[bot])))
        share = 1.0 if other is None else 0.5
        slope = share * _S * (record.score - record.results * expected) / tempering
        weight = share * _S * _S * record.results * expected * (1.0 - expected) / tempering
        gradient[bot] += slope
        matrix[bot][bot] += weight
        if other is not None:
            gradient[other] -= slope
            matrix[other][other] += weight
            matrix[bot][other] = matrix[bot].get(other, 0.0) - weight
            matrix[other][bot] = matrix[other].get(bot, 0.0) - weight
    return gradient, matrix


def refit(
    skills: Mapping[K, Skill],
    keys: Mapping[Any, K] | None = None,
    dispersion: Dispersion[K] = None,
    start: Mapping[K, float] | None = None,
) -> dict[K, float]:
    """The ratings that best explain every record of the field at once (the whole-history
    fit of the records kept): Newton's method from ``start`` (default: the stored
    ratings), each step one sparse solve; steps capped at 400 points."""
    elo = dict(start) if start is not None else {b: s.elo for b, s in skills.items()}
    for _ in range(NEWTON_STEPS):
        gradient, matrix = _gradient_and_precision(skills, keys, elo, dispersion)
        step = solve(matrix, gradient)
        for b in elo:
            elo[b] += max(min(step[b], 400.0), -400.0)
        if max(map(abs, step.values()), default=0.0) < CONVERGED:
            break
    return elo


@dataclass(frozen=True)
class Field(Generic[K]):
    """The field's ratings (``elo``) and their joint precision (``matrix``) at them;
    ``dispersion``: each bot's tempering where it was given (else the stored one's)."""

    elo: Mapping[K, float]
    matrix: Sparse[K]
    dispersion: Mapping[K, float] | None = None

    def difference(self, a: K, b: K) -> Difference:
        """A's rating less B's, with its joint uncertainty."""
        estimate = self.elo[a] - self.elo[b]
        deviation = math.sqrt(contrast_variance(self.matrix, {a: 1.0, b: -1.0}))
        if deviation > 0.0:
            probability = _normal_cdf(estimate / deviation)
        else:
            probability = 1.0 if estimate > 0.0 else 0.0 if estimate < 0.0 else 0.5
        half = Z95 * deviation
        return Difference(estimate, deviation, estimate - half, estimate + half, probability)

    def covariance(self) -> dict[K, dict[K, float]]:
        """The whole joint covariance (Elo^2): one solve per bot (for fields of tens of
        bots; a page needs only ``difference`` or ``deviation``)."""
        return {k: solve(self.matrix, {k: 1.0}) for k in self.elo}

    def deviation(self, bot: K) -> float:
        """The deviation of the bot's rating measured from the field's mean: the
        uncertainty of its place against the others."""
        share = 1.0 / len(self.elo)
        contrast = {k: (1.0 if k == bot else 0.0) - share for k in self.elo}
        return math.sqrt(contrast_variance(self.matrix, contrast))


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
    stored = {b: s.elo for b, s in skills.items()}
    elo = refit(skills, keys, dispersion, start) if whole else stored
    return Field(elo, _gradient_and_precision(skills, keys, elo, dispersion)[1], dispersion)


def solve(matrix: Sparse[K], vector: Mapping[K, float]) -> dict[K, float]:
    """x with matrix x = vector, for a symmetric positive definite sparse ``matrix``
    (conjugate gradients preconditioned by the diagonal)."""
    x = dict.fromkeys(matrix, 0.0)
    r = {k: vector.get(k, 0.0) for k in matrix}
    z = {k: r[k] / matrix[k][k] for k in matrix}
    p = dict(z)
    rz = sum(r[k] * z[k] for k in matrix)
    norm = math.sqrt(sum(v * v for v in r.values()))
    for _ in range(MAX_ITERATIONS):
        if math.sqrt(sum(v * v for v in r.values())) <= TOLERANCE * norm or rz == 0.0:
            break
        q = {k: sum(w * p[j] for j, w in row.items()) for k, row in matrix.items()}
        alpha = rz / sum(p[k] * q[k] for k in matrix)
        for k in matrix:
            x[k] += alpha * p[k]
            r[k] -= alpha * q[k]
            z[k] = r[k] / matrix[k][k]
        rz, before = sum(r[k] * z[k] for k in matrix), rz
        beta = rz / before
        p = {k: z[k] + beta * p[k] for k in matrix}
    return x


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
