"""The collusion audit: do two versions fare, when seated together at a table of three or
more, otherwise than their strengths predict?

Two bots that tell each other their hands (one owner's, or two owners in league) can
play softly against each other and squeeze the rest of the table (soft play), or one can
hand its points to the other (dumping). Neither shows in a replay: every move is legal
and many look good. What shows is the results.

Each deal of a table of three or more is one unit: a version's score on it (in a
duplicate match, its mean over the deal's rotations, so the cards' luck mostly cancels).
Every version's strength theta is fitted by least squares over every unit of the game,

    E[score of the bot in seat i] = theta(bot i) - mean over the other seats of theta,

(the tables are zero-sum), and each unit's residuals are what the strengths do not
explain. For every pair that shared enough tables, two effects of their sitting together
are fitted on top of the strengths (each alone, by the Frisch-Waugh partial regression:
a pair that plays together often would otherwise have its effect taken into its
strengths):

- **soft play**: both of the pair score delta more a deal, the others of the table
  2 delta / (n - 2) less: a pair that spares each other and squeezes the rest (one-sided);
- **dumping**: one scores delta more and the other delta less than their strengths say:
  one handing its points to the other, or yielding to it (two-sided).

Each effect's error is the sandwich over the pair's matches (the deals of one match share
their bots and table), read as Student's t with G - 1 degrees of freedom for G shared
matches, and Holm's threshold runs over every test of the run (two per pair). Plain
numbers in and out: no database.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import numpy as np

from tournaments.fairplay import significance
from tournaments.fairplay.rotation_order import (
    StoredMatch,
    design,
    first_fault_game,
    scores_by_bot,
)

#: A pair is tested once it has shared this many audited deals over MIN_MATCHES matches.
MIN_DEALS = 30
MIN_MATCHES = 10
EVIDENCE_MATCHES = 20
SOFT_PLAY = "soft play"
DUMPING = "dumping"


def deal_scores(match: StoredMatch) -> list[tuple[float, ...]]:
    """Per unit of a match of three seats or more, each seat's score (a duplicate deal's
    mean over its rotations), for the deals played wholly before any fault."""
    seats = len(match.versions)
    if seats < 3:
        return []
    clean = first_fault_game(match.faults, len(match.games))
    units: dict[int, list[tuple[int, Mapping[str, Any]]]] = {}
    for index, game in enumerate(match.games):
        key = int(game["deal"]) if match.duplicate else index
        units.setdefault(key, []).append((index, game))
    found = []
    for played in units.values():
        if played[-1][0] >= clean:
            continue
        scores = [scores_by_bot(game, seats) for _, game in played]
        found.append(tuple(sum(s[bot] for s in scores) / len(scores) for bot in range(seats)))
    return found


@dataclass
class _Table:
    match_id: int
    versions: tuple[int, ...]
    units: np.ndarray  # deals x seats


@dataclass(frozen=True)
class PairFinding:
    """One pair's test of one kind (``SOFT_PLAY`` or ``DUMPING``): ``effect`` the mean
    residual (points a deal: summed for soft play, a minus b for dumping), its ``error``,
    ``t``, ``p`` and Holm's ``threshold``; ``flagged``; the ``deals`` and ``matches``
    shared and ``evidence``, the matches where it showed most."""

    kind: str
    a: int
    b: int
    effect: float
    error: float
    t: float
    p: float
    threshold: float
    flagged: bool
    deals: int
    matches: int
    evidence: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.kind,
            "pair": [self.a, self.b],
            "effect": round(self.effect, 6),
            "error": round(self.error, 6),
            "t": round(self.t, 4),
            "p": self.p,
            "threshold": self.threshold,
            "deals": self.deals,
            "matches": self.matches,
            "evidence": list(self.evidence),
        }


@dataclass
class _Fit:
    """The strengths' fit: versions' columns, the pseudo-inverse of its precision, theta,
    and each table's design rows and residuals summed over its deals."""

    column: dict[Any, int]
    inverse: np.ndarray
    theta: np.ndarray
    rows: list[tuple[list[int], np.ndarray, np.ndarray]]
    #: The same, padded into arrays for the sandwich over every table: each table's
    #: columns (T x W), design (T x seats x W) and residual sums (T x seats).
    padded: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: Each version's tables (indices), for a pair's sandwich.
    tables_of: dict[int, np.ndarray]


def collect(matches: Iterable[StoredMatch]) -> list[_Table]:
    tables = []
    for match in matches:
        units = deal_scores(match)
        if units:
            tables.append(_Table(match.match_id, match.versions, np.array(units, dtype=float)))
    return tables


Pair = tuple[int, int]


def strengths(tables: Sequence[_Table], known: Collection[Pair] = ()) -> _Fit:
    """Every version's theta (least squares of least norm: only differences are seen),
    fitted with both effects of the ``known`` pairs (those already flagged), so that a
    flagged pair's effect is not seen again in its members' pairs with others."""
    versions = sorted({v for t in tables for v in t.versions})
    column: dict[Any, int] = {v: c for c, v in enumerate(versions)}
    for pair in known:
        for kind in (SOFT_PLAY, DUMPING):
            column[kind, *pair] = len(column)
    size = len(column)
    precision, score = np.zeros((size, size)), np.zeros(size)
    designs = []
    for table in tables:
        local, rows = _rows(table.versions, column, known)
        designs.append((local, rows))
        precision[np.ix_(local, local)] += len(table.units) * rows.T @ rows
        score[local] += rows.T @ table.units.sum(axis=0)
    inverse = np.linalg.pinv(precision, hermitian=True) if size else precision
    theta = inverse @ score
    fitted = [
        (local, rows, table.units.sum(axis=0) - len(table.units) * rows @ theta[local])
        for table, (local, rows) in zip(tables, designs, strict=True)
    ]
    tables_of: dict[int, list[int]] = {}
    for index, table in enumerate(tables):
        for version in set(table.versions):
            tables_of.setdefault(version, []).append(index)
    found = {v: np.array(indices) for v, indices in tables_of.items()}
    return _Fit(column, inverse, theta, fitted, _padded(fitted), found)


def _padded(
    fitted: Sequence[tuple[list[int], np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    count = len(fitted)
    width = max((len(local) for local, _, _ in fitted), default=0)
    seats = max((len(left) for _, _, left in fitted), default=0)
    columns = np.zeros((count, width), dtype=np.int64)
    designs = np.zeros((count, seats, width))
    lefts = np.zeros((count, seats))
    for t, (local, rows, left) in enumerate(fitted):
        columns[t, : len(local)] = local
        designs[t, : rows.shape[0], : rows.shape[1]] = rows
        lefts[t, : len(left)] = left
    return columns, designs, lefts


def _rows(
    versions: Sequence[int], column: Mapping[Any, int], known: Collection[Pair]
) -> tuple[list[int], np.ndarray]:
    """A table's design: the strengths' rows, then a column per effect of each known
    pair seated there."""
    local, rows = design(versions, column)
    extra, values = [], []
    for a, b in known:
        if a in versions and b in versions:
            i, j = versions.index(a), versions.index(b)
            for kind in (SOFT_PLAY, DUMPING):
                extra.append(column[kind, a, b])
                values.append(_effect(kind, len(versions), i, j))
    if not extra:
        return local, rows
    return [*local, *extra], np.column_stack([rows, *values])


def _effect(kind: str, n: int, i: int, j: int) -> np.ndarray:
    """The pair's column at a table of n with the pair in seats i and j."""
    x = np.zeros(n)
    if kind == SOFT_PLAY:
        x[:] = -2.0 / (n - 2)
        x[i] = x[j] = 1.0
    else:
        x[i], x[j] = 1.0, -1.0
    return x


def pair_tables(tables: Sequence[_Table]) -> dict[tuple[int, int], list[tuple[int, int, int]]]:
    """Each pair of different versions: the tables it shared (index, seat of a, of b)."""
    found: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for index, table in enumerate(tables):
        for i, j in combinations(range(len(table.versions)), 2):
            a, b = table.versions[i], table.versions[j]
            if a != b:
                (a, i), (b, j) = sorted([(a, i), (b, j)])
                found.setdefault((a, b), []).append((index, i, j))
    return found


def pair_effect(
    kind: str, fit: _Fit, tables: Sequence[_Table], shared: Sequence[tuple[int, int, int]]
) -> tuple[float, float, dict[int, float]]:
    """The pair's effect delta a deal, its sandwich error, and each match's contribution.

    With x the pair's column and X the strengths' design, the partial effect is
    x'r / (x'x - v'(X'X)^+ v), v = X'x, r the strengths' residuals (X'r = 0). Its error
    is the sandwich over the tables of either of the pair (x's part the strengths explain,
    X (X'X)^+ v, is spread over the tables its members played: a pair that is nearly
    always together is measured mostly by the few tables where it is not); so a pair costs
    its members' tables, not the whole history."""
    size = len(fit.column)
    v, xx = np.zeros(size), 0.0
    columns = []
    for index, i, j in shared:
        local, rows, _ = fit.rows[index]
        deals = len(tables[index].units)
        x = _effect(kind, len(tables[index].versions), i, j)
        columns.append(x)
        v[local] += deals * rows.T @ x
        xx += deals * float(x @ x)
    explained = fit.inverse @ v
    denominator = xx - float(v @ explained)
    if denominator <= 1e-12:
        return 0.0, 0.0, {}
    # The tables of either of the pair: where x, and x's part the strengths explain
    # (mostly the pair's own strengths), live; the rest of the field's share is small.
    first, i, j = shared[0]
    a, b = tables[first].versions[i], tables[first].versions[j]
    near = np.union1d(fit.tables_of[a], fit.tables_of[b])
    where = {int(t): k for k, t in enumerate(near)}
    columns_all, designs_all, lefts_all = (array[near] for array in fit.padded)
    pair_x = np.zeros(lefts_all.shape)
    deals_of = np.array([len(tables[t].units) for t in near], dtype=float)
    for (index, _, _), x in zip(shared, columns, strict=True):
        pair_x[where[index], : len(x)] = x
    delta = float((pair_x * lefts_all).sum()) / denominator
    partial = pair_x - np.einsum("tsw,tw->ts", designs_all, explained[columns_all])
    left = lefts_all - deals_of[:, None] * delta * partial  # the residuals with the pair's column
    scores = (partial * left).sum(axis=1)
    parts: dict[int, float] = {}
    for index, _, _ in shared:
        match = tables[index].match_id
        parts[match] = parts.get(match, 0.0) + float(scores[where[index]])
    clusters = len(near)
    spread = float(scores @ scores) * clusters / max(clusters - 1, 1)
    return delta, math.sqrt(spread) / denominator, parts


def audit(
    matches: Iterable[StoredMatch],
    alpha: float = significance.ALPHA,
    min_deals: int = MIN_DEALS,
    min_matches: int = MIN_MATCHES,
) -> list[PairFinding]:
    """Both tests of every pair of ``matches`` (one game's) that shared enough deals.

    Holm's procedure, step by step: the pair with the smallest p-value is flagged when it
    is within alpha over the tests left; its effects then join the strengths' fit and the
    other pairs are tested again (a colluder's gains with its partner would otherwise show
    again in its pairs with the bots they sat with), until one misses."""
    tables = collect(matches)
    candidates = {}
    for pair, shared in pair_tables(tables).items():
        deals = sum(len(tables[index].units) for index, _, _ in shared)
        clusters = len({tables[index].match_id for index, _, _ in shared})
        if deals >= min_deals and clusters >= min_matches:
            candidates[pair] = shared
    family = 2 * len(candidates)
    known: list[Pair] = []
    kept: dict[tuple[str, int, int], PairFinding] = {}
    while True:
        fit = strengths(tables, known)
        tests = {
            (kind, *pair): _test(kind, fit, tables, shared)
            for pair, shared in candidates.items()
            if pair not in known
            for kind in (SOFT_PLAY, DUMPING)
        }
        if not tests:
            break
        left = family - 2 * len(known)
        first = min(tests, key=lambda key: tests[key].p)
        for key, found in tests.items():
            kept[key] = replace(found, threshold=alpha / max(left, 1))
        if tests[first].p > alpha / max(left, 1):
            break
        pair = (first[1], first[2])
        known.append(pair)
        for kind in (SOFT_PLAY, DUMPING):
            kept[kind, *pair] = replace(
                kept[kind, *pair], flagged=kept[kind, *pair].p <= alpha / max(left, 1)
            )
    return sorted(kept.values(), key=lambda f: f.p)


def _test(
    kind: str, fit: _Fit, tables: Sequence[_Table], shared: Sequence[tuple[int, int, int]]
) -> PairFinding:
    first, i, j = shared[0]
    a, b = sorted((tables[first].versions[i], tables[first].versions[j]))
    effect, error, parts = pair_effect(kind, fit, tables, shared)
    clusters = len(parts) or len({tables[k].match_id for k, _, _ in shared})
    t = effect / error if error > 0 else 0.0
    upper = significance.upper_t(t, max(clusters - 1, 1))
    p = upper if kind == SOFT_PLAY else min(1.0, 2.0 * min(upper, 1.0 - upper))
    sign = 1.0 if effect >= 0 else -1.0
    top = sorted(parts, key=lambda m: -sign * parts[m])[:EVIDENCE_MATCHES]
    deals = sum(len(tables[k].units) for k, _, _ in shared)
    return PairFinding(kind, a, b, effect, error, t, p, 0.0, False, deals, clusters, tuple(top))
