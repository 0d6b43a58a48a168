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
from dataclasses import field as dataclass_field
from functools import cached_property
from typing import Any, Generic, TypeVar

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

from tournaments.rating.model import field_bias
from tournaments.rating.model import field_system as system
from tournaments.rating.model.field_spread import shrink
from tournaments.rating.model.global_rating import _S, CONVERGED, NEWTON_STEPS
from tournaments.rating.model.results import Z95, Record
from tournaments.rating.model.skill import FIELD_PRIOR_DEVIATION, START_DEVIATION, Skill

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


@dataclass(frozen=True)
class Stored(Generic[K]):
    """The field's bots and records as arrays: each bot's stored rating and variance in
    the order of ``keys``, and every record as ``field_system.Links`` holds it (its bot,
    the field's bot it is against or -1, results, score, seen) without the tempering,
    which is each bot's (``links``). A field pass loads a big game's 1.6 million records
    straight into these (``field_store``: one binary COPY) instead of a Python object per
    record; ``stored_of`` builds them from Skills. Iterating gives the keys, as a Mapping
    of Skills does."""

    keys: list[K]
    elo: np.ndarray
    variance: np.ndarray
    bot: np.ndarray
    other: np.ndarray
    results: np.ndarray
    score: np.ndarray
    seen: np.ndarray

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    @cached_property
    def tempering(self) -> np.ndarray:
        """Each bot's stored tempering (``_tempering``, every bot at once)."""
        n = len(self.keys)
        expected = 1.0 / (1.0 + np.exp(_S * (self.seen - self.elo[self.bot])))
        weight = _S * _S * self.results * expected * (1.0 - expected)
        seen = np.bincount(self.bot, weight, n)
        data = 1.0 / self.variance - 1.0 / START_DEVIATION**2
        found = np.ones(n)
        usable = (data > 0.0) & (seen > 0.0)
        found[usable] = seen[usable] / data[usable]
        return found

    def links(
        self, dispersion: Dispersion[K] = None, prior: float = FIELD_PRIOR_DEVIATION
    ) -> system.Links[K]:
        """The records with their bots' tempering: from ``dispersion`` where it gives the
        bot's, else the stored one's; fitted with the prior ``prior`` around the start."""
        tempering = self.tempering
        if dispersion is not None:
            given = np.fromiter(
                (dispersion.get(k, math.nan) for k in self.keys), float, len(self.keys)
            )
            tempering = np.where(np.isnan(given), tempering, given)
        return system.Links(
            self.keys,
            self.bot,
            self.other,
            self.results,
            self.score,
            self.seen,
            tempering[self.bot],
            self.structure,
            prior,
        )

    @cached_property
    def structure(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The precision's sparsity pattern (``field_system.sparsity``): shared by the
        field's links at every dispersion."""
        return system.sparsity(len(self.keys), self.bot, self.other)


def stored_of(skills: Mapping[K, Skill] | Stored[K], keys: Mapping[Any, K] | None) -> Stored[K]:
    """The field of ``skills`` as arrays: each record against the bot of ``skills`` that
    ``keys`` maps its key to (default: the key itself), or none (an opponent outside the
    field, fixed where it was last met)."""
    if isinstance(skills, Stored):
        return skills
    order = list(skills)
    index = {k: i for i, k in enumerate(order)}
    columns: list[list[float]] = [[], [], [], [], []]
    for i, (bot, skill) in enumerate(skills.items()):
        for key, record in skill.records.items():
            other = keys.get(key) if keys is not None else key
            j = -1 if other == bot or other not in index else index[other]
            for column, value in zip(
                columns, (i, j, record.results, record.score, record.seen), strict=True
            ):
                column.append(value)
    return Stored(
        order,
        np.fromiter((s.elo for s in skills.values()), float, len(order)),
        np.fromiter((s.variance for s in skills.values()), float, len(order)),
        np.asarray(columns[0], dtype=np.int64),
        np.asarray(columns[1], dtype=np.int64),
        *(np.asarray(c, dtype=float) for c in columns[2:]),
    )


def _links(
    skills: Mapping[K, Skill] | Stored[K], keys: Mapping[Any, K] | None, dispersion: Dispersion[K]
) -> system.Links[K]:
    """Every record of the field as arrays (``field_system.Links``): its bot, the bot of
    ``skills`` it is against (none for an opponent outside the field, fixed where it was
    last met), the record and the bot's tempering (from ``dispersion`` where it gives
    the bot's, else the stored one's)."""
    return stored_of(skills, keys).links(dispersion)


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
    stored = stored_of(skills, keys)
    links = stored.links(dispersion)
    return dict(zip(links.keys, _refit(links, stored, start).tolist(), strict=True))


def _refit(
    links: system.Links[K], stored: Stored[K], start: Mapping[K, float] | None
) -> np.ndarray:
    begin = links.vector(start) if start is not None else stored.elo.copy()
    return system.refit(links, begin, NEWTON_STEPS, CONVERGED)


@dataclass(frozen=True)
class Field(Generic[K]):
    """The field's ratings (``elo``) and their joint precision at them (``csr``, a CSR
    matrix in the order of ``keys``); ``dispersion``: each bot's tempering where it was
    given (else the stored one's); ``spread``: how spread the field is (Elo), where measured
    (``field_spread``: the deviations count the prior's pull over a field that spread, not
    over one of 500); ``joint``: its covariance where the pass already has it
    (``field_deviations.with_spread``)."""

    elo: Mapping[K, float]
    keys: list[K]
    csr: sparse.csr_array
    dispersion: Mapping[K, float] | None = None
    spread: float | None = None
    joint: object | None = dataclass_field(default=None, compare=False, repr=False)
    #: With Firth's pseudo-results (``field_bias.penalised``), where the fit reduced its bias.
    penalised: sparse.csr_array | None = dataclass_field(default=None, compare=False, repr=False)
    #: Where the fit reduced its bias: what its pseudo-results were multiplied by in the fit
    #: and in its posterior (``field_dispersion.FIRTH_SCALES``), so that a page fitting on
    #: the spot fits as the pass did (``FieldPass.bias_scale``).
    scales: tuple[float, float] | None = None
    #: Where the fit reduced its bias: the share of its noise with the penalty held fixed
    #: that its deviations weigh in (``field_bias.sandwich_share``; 0: the posterior's).
    sandwich: float = 0.0

    @property
    def posterior(self) -> sparse.csr_array:
        """The precision the deviations invert: with Firth's pseudo-results where the fit
        took its bias away (``penalised``), else the records' own (``csr``)."""
        return self.csr if self.penalised is None else self.penalised

    @cached_property
    def fitted_penalty(self) -> sparse.csr_array | None:
        """The records' precision with the pseudo-results the fit itself added (``scales``'
        first, where the posterior's differ), whose inverse reads the fit's noise
        (``field_covariance.Dense.sandwich``): the pseudo-results are linear in their
        scale, so it is H + (fit / posterior) (penalised - H)."""
        if self.penalised is None or self.scales is None or self.scales[0] == self.scales[1]:
            return None
        ratio = self.scales[0] / self.scales[1] if self.scales[1] else 1.0
        return self.csr + ratio * (self.penalised - self.csr)

    @property
    def shrink(self) -> float:
        """What the covariance H^-1 loses as H^-2 times this (``field_spread.shrink``)."""
        return shrink(self.spread)

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
        deviation = math.sqrt(self.variance(contrast))
        if deviation > 0.0:
            probability = _normal_cdf(estimate / deviation)
        else:
            probability = 1.0 if estimate > 0.0 else 0.0 if estimate < 0.0 else 0.5
        half = Z95 * deviation
        return Difference(estimate, deviation, estimate - half, estimate + half, probability)

    def covariance(self) -> dict[K, dict[K, float]]:
        """The whole joint covariance (Elo^2): one solve for every bot (for fields of tens
        of bots; a page needs only ``difference`` or ``deviation``)."""
        found = system.solve(self.posterior, np.eye(len(self.keys)))
        found -= self.shrink * (found @ found)
        return {
            k: dict(zip(self.keys, found[:, i].tolist(), strict=True))
            for i, k in enumerate(self.keys)
        }

    def deviation(self, bot: K) -> float:
        """The deviation of the bot's rating measured from the field's mean: the
        uncertainty of its place against the others."""
        contrast = self.contrast({bot: 1.0}) - 1.0 / len(self.keys)
        return math.sqrt(self.variance(contrast))

    def variance(self, contrast: np.ndarray) -> float:
        """The variance (Elo^2) of the combination ``contrast`` of ratings, as the pass's
        covariance reads it (``field_deviations.with_spread``): the posterior's at the
        field's spread, with the penalty-fixed noise's share where ``sandwich``."""
        if self.penalised is None or not self.sandwich:
            return system.contrast_variance(self.posterior, contrast, self.shrink)
        return system.contrast_variance(
            self.penalised, contrast, self.shrink, self.csr, self.sandwich, self.fitted_penalty
        )


def field_of(
    skills: Mapping[K, Skill] | Stored[K],
    keys: Mapping[Any, K] | None = None,
    whole: bool = True,
    dispersion: Dispersion[K] = None,
    start: Mapping[K, float] | None = None,
    prior: float = FIELD_PRIOR_DEVIATION,
    reduce_bias: bool = False,
    bias_scale: float = 1.0,
    posterior_scale: float | None = None,
) -> Field[K]:
    """The field of ``skills`` (or of its arrays, ``Stored``): refitted as a whole
    (``refit``, from ``start``) when ``whole``, else at the stored ratings; with the joint
    precision at those ratings. ``dispersion``: each bot's tempering, where measured (else
    its stored one's); ``prior``: the prior's deviation (``field_dispersion.COUNT_SPREAD``
    measures the dispersion at the field's own spread); ``reduce_bias``: the fit's
    small-sample bias taken away (``field_bias``), its pseudo-results
    times ``bias_scale`` in the fit and ``posterior_scale`` (the same if None) in its
    posterior."""
    stored = stored_of(skills, keys)
    links = stored.links(dispersion, prior)
    elo = _refit(links, stored, start) if whole else stored.elo.copy()
    penalised, variance, scales = None, None, None
    if whole and reduce_bias:
        elo, variance = field_bias.refit(links, elo, NEWTON_STEPS, CONVERGED, bias_scale)
    matrix = system.gradient_and_precision(links, elo)[1]
    if whole and reduce_bias:
        scales = (bias_scale, bias_scale if posterior_scale is None else posterior_scale)
        penalised = field_bias.penalised(links, elo, matrix, scales[1], variance)
    ratings = dict(zip(links.keys, elo.tolist(), strict=True))
    return Field(ratings, links.keys, matrix, dispersion, penalised=penalised, scales=scales)


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
