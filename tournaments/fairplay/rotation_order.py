"""The rotation-order audit: does a version score better in a deal's later rotations than
in its first, beyond chance?

A duplicate match plays every deal once per seating (judge.referee ``rotations``), all
deals in the first seating, then all again in the next, each seating by fresh bot
processes. An honest bot knows nothing in a deal's second rotation that it did not know
in its first, so its score there is, on average, what it was in the first (the seats it
takes are balanced or shuffled: tournaments balance them, the ladder shuffles them, so
no seat's advantage leans one way). A bot that carries the deal across, through the
host's kernel caches (docs/sandbox.md), knows its opponents' hands the second time round
and scores more.

For each deal a version played at every rotation (and before any fault of the match: a
retired seat plays its fallback from then on, which would lift its tablemates' later
rotations) the statistic takes

    D = mean(score in the later rotations) - score in the first rotation.

What the opponents' rotations do to it: at a zero-sum table the version's D also moves
with its tablemates' gains (a cheating opponent lowers it, a bot that tires in later
rotations, say by spending its time bank early, raises it). So every version's gain g is
fitted jointly, by least squares over every deal of the game, to

    E[D of the bot in seat i] = g(bot i) - mean over the other seats of g(their bot),

house bots held at 0 (they are the service's own code); a group of versions that never
met a house bot is measured against the middle half of its others (a minority of cheaters, or of
bots that tire, moves that little: ``contrast``). Its standard error is the sandwich over
matches (the deals of one match share their bots and table), a version's test one-sided
(only gaining is cheating), and the threshold over the versions tested is Holm's
(significance.py): in a field of honest versions, one run flags any at all at most
``alpha`` of the time.

Plain numbers in and out: no database (``stored.py`` reads the matches).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tournaments.fairplay import significance

#: A version is tested once it has played this many audited deals over MIN_MATCHES matches:
#: the sandwich error needs a number of matches to be worth a normal p-value.
MIN_DEALS = 30
MIN_MATCHES = 10
#: The matches kept as evidence of a finding: those where the version gained most.
EVIDENCE_MATCHES = 20


@dataclass(frozen=True)
class StoredMatch:
    """A finished match as the audits need it: ``versions[i]`` sits at the match's seat i
    (its bot index in the referee), ``games`` and ``faults`` as lease.finish_match stores
    them (each game's ``deal``, ``seating`` and ``result``; each fault's ``game`` index)."""

    match_id: int
    versions: tuple[int, ...]
    duplicate: bool
    games: Sequence[Mapping[str, Any]]
    faults: Sequence[Mapping[str, Any]] = ()


def first_fault_game(faults: Sequence[Mapping[str, Any]], games: int) -> int:
    """The index of the first game a fault touched (every game from it on has a retired
    seat), ``games`` when none did; 0 for a fault outside any game (start-up)."""
    first = games
    for fault in faults:
        game = fault.get("game")
        first = min(first, 0 if game is None else int(game))
    return first


def later_minus_first(match: StoredMatch) -> list[tuple[float, ...]]:
    """Per audited deal of ``match``, each seat's mean score in the later rotations minus
    its score in the first (in the order the referee played them). A deal is audited when
    the match is duplicate and all its rotations, at least two, came before any fault."""
    if not match.duplicate:
        return []
    clean = first_fault_game(match.faults, len(match.games))
    rotations: dict[int, list[tuple[int, Mapping[str, Any]]]] = {}
    for index, game in enumerate(match.games):
        rotations.setdefault(int(game["deal"]), []).append((index, game))
    seats = len(match.versions)
    found = []
    for played in rotations.values():
        if len(played) < 2 or played[-1][0] >= clean:
            continue
        scores = [scores_by_bot(game, seats) for _, game in played]
        found.append(
            tuple(
                sum(s[bot] for s in scores[1:]) / (len(scores) - 1) - scores[0][bot]
                for bot in range(seats)
            )
        )
    return found


def scores_by_bot(game: Mapping[str, Any], seats: int) -> list[float]:
    """A game's scores indexed by the match's seat (bot index), not the game's seat."""
    scores = [0.0] * seats
    for seat, bot in enumerate(game["seating"]):
        scores[bot] = float(game["result"]["scores"][seat])
    return scores


@dataclass(frozen=True)
class Finding:
    """One version's test. ``gain``: its fitted extra score a deal in the later rotations
    (the game's points), ``error`` its standard error, ``t`` their ratio and its
    one-sided ``p``; ``threshold`` the p it had to reach (Holm's), ``flagged`` whether
    it did. The raw evidence: ``deals`` and ``matches`` audited, the deals it did
    ``better`` and ``worse`` in later than in first, ``mean_difference`` the plain mean
    of D, and ``evidence`` the ids of the matches where it gained most."""

    version: int
    gain: float
    error: float
    t: float
    p: float
    threshold: float
    flagged: bool
    deals: int
    matches: int
    better: int
    worse: int
    mean_difference: float
    evidence: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "gain": round(self.gain, 6),
            "error": round(self.error, 6),
            "t": round(self.t, 4),
            "p": self.p,
            "threshold": self.threshold,
            "deals": self.deals,
            "matches": self.matches,
            "better": self.better,
            "worse": self.worse,
            "mean_difference": round(self.mean_difference, 6),
            "evidence": list(self.evidence),
        }


@dataclass
class _Table:
    """One match's audited deals, summed: the fit needs nothing finer."""

    match_id: int
    versions: tuple[int, ...]
    deals: int
    sums: np.ndarray


@dataclass
class _Tally:
    deals: int = 0
    better: int = 0
    worse: int = 0
    total: float = 0.0
    by_match: dict[int, float] = field(default_factory=dict)


def collect(matches: Iterable[StoredMatch]) -> tuple[list[_Table], dict[int, _Tally]]:
    """The audited deals of ``matches``, summed per match, and each version's raw tally."""
    tables: list[_Table] = []
    tallies: dict[int, _Tally] = {}
    for match in matches:
        deals = later_minus_first(match)
        if not deals:
            continue
        sums = np.sum(np.array(deals, dtype=float), axis=0)
        tables.append(_Table(match.match_id, match.versions, len(deals), sums))
        for seat, version in enumerate(match.versions):
            tally = tallies.setdefault(version, _Tally())
            tally.deals += len(deals)
            tally.better += sum(1 for d in deals if d[seat] > 1e-9)
            tally.worse += sum(1 for d in deals if d[seat] < -1e-9)
            tally.total += float(sums[seat])
            tally.by_match[match.match_id] = tally.by_match.get(match.match_id, 0.0) + float(
                sums[seat]
            )
    return tables, tallies


def design(versions: Sequence[int], column: Mapping[int, int]) -> tuple[list[int], np.ndarray]:
    """The table's rows of the fit: seat i's D is g(bot i) less the mean of the others'
    g; only the fitted versions' columns (house bots are held at 0)."""
    local = sorted({column[v] for v in versions if v in column})
    where = {c: j for j, c in enumerate(local)}
    n = len(versions)
    rows = np.zeros((n, len(local)))
    for i in range(n):
        for j, version in enumerate(versions):
            if version in column:
                rows[i, where[column[version]]] += 1.0 if i == j else -1.0 / (n - 1)
    return local, rows


@dataclass
class Fitted:
    """The joint fit: the least-squares gains of least norm (by column), the inverse of
    the fit's precision, each table's design, and the groups of columns that met."""

    column: dict[int, int]
    gains: np.ndarray
    inverse: np.ndarray
    designs: list[tuple[list[int], np.ndarray]]
    groups: dict[int, list[int]]
    anchored: set[int]


def fit(tables: Sequence[_Table], honest: Collection[int] = ()) -> Fitted:
    """The gains of every version but the ``honest`` ones (held at 0) that fit the
    tables' later-minus-first sums best."""
    fitted = sorted({v for t in tables for v in t.versions} - set(honest))
    column = {v: c for c, v in enumerate(fitted)}
    size = len(fitted)
    precision, score = np.zeros((size, size)), np.zeros(size)
    designs = []
    for table in tables:
        local, rows = design(table.versions, column)
        designs.append((local, rows))
        if local:
            precision[np.ix_(local, local)] += table.deals * rows.T @ rows
            score[local] += rows.T @ table.sums
    inverse = np.linalg.pinv(precision, hermitian=True) if size else precision
    groups, anchored = _groups(tables, column)
    return Fitted(column, inverse @ score, inverse, designs, groups, anchored)


def _groups(
    tables: Sequence[_Table], column: Mapping[int, int]
) -> tuple[dict[int, list[int]], set[int]]:
    """The columns by group of versions that met (directly or through others), and the
    groups that met a house bot (the last index stands for every house bot)."""
    house = len(column)
    parent = list(range(house + 1))

    def root(c: int) -> int:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for table in tables:
        cols = [column.get(v, house) for v in table.versions]
        for c in cols[1:]:
            parent[root(c)] = root(cols[0])
    groups: dict[int, list[int]] = {}
    for c in range(house):
        groups.setdefault(root(c), []).append(c)
    return groups, {top for top in groups if top == root(house)}


def contrast(found: Fitted, version: int) -> np.ndarray:
    """What a version's gain is measured against. At a zero-sum table only differences of
    gains are seen: a version in a group that met a house bot is measured from the house
    bots' 0; otherwise from the trimmed mean (the middle half) of the others of its group,
    so that a minority of cheaters, or of bots that tire, moves nobody else's measure."""
    c = found.column[version]
    vector = np.zeros(len(found.column))
    vector[c] = 1.0
    top = next(t for t, members in found.groups.items() if c in members)
    if top in found.anchored:
        return vector
    others = sorted((m for m in found.groups[top] if m != c), key=lambda m: found.gains[m])
    cut = (len(others) - 1) // 2 if len(others) <= 4 else len(others) // 4  # as many each side
    middle = others[cut : len(others) - cut]
    if middle:
        vector[middle] -= 1.0 / len(middle)
    return vector


def errors(
    found: Fitted, tables: Sequence[_Table], contrasts: Mapping[int, np.ndarray]
) -> dict[int, float]:
    """Each contrast's variance, by the sandwich over matches (each match one cluster:
    its deals share their bots and table), before the small-sample factor."""
    keys = list(contrasts)
    if not keys:
        return {}
    through = np.array([contrasts[k] for k in keys]) @ found.inverse
    meat = np.zeros(len(keys))
    for table, (local, rows) in zip(tables, found.designs, strict=True):
        if local:
            residual = table.sums - table.deals * rows @ found.gains[local]
            meat += (through[:, local] @ (rows.T @ residual)) ** 2
    return {k: float(v) for k, v in zip(keys, meat, strict=True)}


def audit(
    matches: Iterable[StoredMatch],
    honest: Collection[int] = (),
    alpha: float = significance.ALPHA,
    min_deals: int = MIN_DEALS,
    min_matches: int = MIN_MATCHES,
) -> dict[int, Finding]:
    """The test of every version of ``matches`` (one game's) with enough audited deals.
    ``honest``: versions held at no gain (house bots), never tested.

    A version's statistic is its gain over its standard error; with G matches it is
    read as Student's t with G - 1 degrees of freedom, the error scaled by G / (G - 1)
    (a sandwich over few clusters runs small: measured on honest fields, the plain
    normal reading flagged 2.5-4% of versions at 1%)."""
    tables, tallies = collect(matches)
    found = fit(tables, honest)
    tested = [
        v
        for v, t in tallies.items()
        if v in found.column and t.deals >= min_deals and len(t.by_match) >= min_matches
    ]
    contrasts = {v: contrast(found, v) for v in tested}
    variances = errors(found, tables, contrasts)
    gains, error, t, p = {}, {}, {}, {}
    for v in tested:
        clusters = len(tallies[v].by_match)
        gains[v] = float(contrasts[v] @ found.gains)
        error[v] = math.sqrt(max(variances[v], 0.0) * clusters / (clusters - 1))
        t[v] = gains[v] / error[v] if error[v] > 0 else 0.0
        p[v] = significance.upper_t(t[v], clusters - 1)
    thresholds = significance.holm(p, alpha)
    hits = significance.flagged(p, alpha)
    findings = {}
    for v in tested:
        tally = tallies[v]
        top = sorted(tally.by_match, key=lambda m: -tally.by_match[m])[:EVIDENCE_MATCHES]
        findings[v] = Finding(
            v,
            gains[v],
            error[v],
            t[v],
            p[v],
            thresholds[v],
            v in hits,
            tally.deals,
            len(tally.by_match),
            tally.better,
            tally.worse,
            tally.total / tally.deals,
            tuple(top),
        )
    return findings
