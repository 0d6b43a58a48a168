"""The ladder's choice of tables: pure functions over players' ratings (no database).

The rule: **play the table whose results are expected to narrow the intervals of the
differences between its players most** (docs/ladder.md): the ladder is there to order the
bots, and an order is made of differences. Each player is a rating ``mu`` and its
standard deviation ``sigma`` (Elo points). For each pair a, b at a table
(``difference_gain``):

- one comparison unit between them carries Fisher information ``I = c² p (1 - p)``
  (``c = ln 10 / 400``), p a's expected score softened by both deviations (Glicko's g): a
  near-even game teaches most, a mismatch almost nothing;
- what is known of their difference before: ``V0 = 1 / (1 / (σa² + σb²) + m I)``, both
  ratings' variances and the pair's own ``m`` recent meetings (so a pair already well
  measured gives way to others);
- at a table of n the n - 1 pairs of one placing are decided together, so a match of u
  units counts ``u / (1 + 0.22 (n - 2))`` (the variance inflation the calibration study
  measured: 1.44 at 4 seats, about 1.9 at 6);
- the pair's gain is ``sqrt(V0) - sqrt(V1)`` with ``V1 = 1 / (1 / V0 + that × I)``,
  weighted by ``exp(-d² / (8 V0))`` (d the rating difference): a pair whose order is
  already clear fades out; the table's gain is the sum over its pairs.

So new bots and new versions (sigma 350) play first, each against opponents near its
rating; neighbours on the ladder meet often, but not the same two again and again. Tables
are picked greedily: the anchors are the unsettled players in the most valuable pairs
(every pair is scored), each grown seat by seat with the player that adds most gain; the
best table is played, its players leave the pool, and so on. Two players of one owner
never share a table (``Player.owner``: their bots could tell each other their hands). A
player whose sigma is at or below ``target`` is settled: it still serves as an opponent,
but no table is made for it alone. ``sigma_after`` gives each seat's expected deviation
after the match (shown by ``manage.py ladder plan``).
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

import numpy as np

#: Elo's logistic scale in natural units: P(win) = 1 / (1 + exp(-C (r_a - r_b))).
C = math.log(10.0) / 400.0
#: How much one placing's n - 1 pairs count together, per seat beyond two (measured by
#: bench.ratings.calibration: the sandwich was 1.2x the model's error at 4 seats, 1.45x at 6).
PAIR_CORRELATION = 0.22
#: How wide the ladder draws each rating before choosing tables (``explored``), in sigmas,
#: on a field of up to SMALL_FIELD free players. Drawn from the interval itself (1), a
#: 50-bot 2-seat ladder still chose pairs whose errors line up, and its field's intervals
#: covered 0.90-0.95 (random pairs: 0.95-0.98); drawn twice as wide, 0.93-0.96, with the
#: 8-bot cells unchanged (0.94-0.97). It costs games: a settled 20-bot field was ordered
#: after 16,800 games against 13,600 (the round robin's 23,900), a newcomer placed after
#: 216 against 240 (docs/ratings.md).
EXPLORE_SPREAD = 2.0
#: The draw's width at two seats from LARGE_FIELD free players on, linear in the players
#: between. The more players, the nearer the pair the matchmaker can find among them, and
#: the more its choice follows the estimates' errors: under the one rating (issue 47) the
#: 50-bot two-seat ladders' errors still exceeded their intervals at 10 and 20 plays at 2
#: sigmas (z sd 1.04-1.08; the real draw-heavy one covered 0.929 at 10 plays), and were
#: centred at 3 (z sd 1.01-1.02), while 3 on a field of 8 makes its tables nearly random
#: and its intervals wide (and costs a 20-bot field 70% more games to order, where it costs
#: a 50-bot one 16%). A table of 4 or 6 seats holds 6 or 15 pairs, most of them not the
#: nearest: its 50-bot ladders were centred at 2 (z sd 1.00-1.03) and read no better at 3,
#: so they keep EXPLORE_SPREAD (docs/ratings.md, "The two-seat ladder's draw widens with
#: its field").
EXPLORE_SPREAD_LARGE = 3.0
SMALL_FIELD = 20
LARGE_FIELD = 50
#: Anchors tried (the most uncertain players), each completed greedily by the players
#: that add most gain: the best table almost always holds one of the most uncertain.
ANCHORS = 8

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Player(Generic[K]):
    """A ladder entrant as the scheduler sees it: its rating, deviation and games."""

    key: K
    mu: float
    sigma: float
    games: int = 0
    #: Who owns the player: two players of one owner never share a table (their bots
    #: could tell each other their hands, docs/fair-play.md); None (a house bot): anyone's.
    owner: Hashable | None = None


def same_owner(a: Player[K], b: Player[K]) -> bool:
    """Whether the two players have one owner (house bots have none: never)."""
    return a.owner is not None and a.owner == b.owner


@dataclass(frozen=True)
class Pick(Generic[K]):
    """A chosen table (players in seat order), its gain and the sigmas it expects."""

    seats: tuple[Player[K], ...]
    gain: float
    after: tuple[float, ...]

    def reason(self) -> str:
        """Why this table: each seat's rating, sigma now and expected after."""
        parts = [
            f"{p.key}: {p.mu:.0f} ±{p.sigma:.0f} -> ±{a:.0f}"
            for p, a in zip(self.seats, self.after, strict=True)
        ]
        return f"gain {self.gain:.1f} ({'; '.join(parts)})"


def expected_score(a: Player[K], b: Player[K]) -> float:
    """a's expected score against b, softened by both uncertainties (Glicko's g)."""
    spread = a.sigma**2 + b.sigma**2
    g = 1.0 / math.sqrt(1.0 + SOFTEN * spread)
    return 1.0 / (1.0 + math.exp(-C * g * (a.mu - b.mu)))


#: Glicko's g factor: 3 c² / π².
SOFTEN = 3.0 * C * C / math.pi**2


def information(a: Player[K], b: Player[K]) -> float:
    """What one unit against b tells about a's rating (per Elo², diluted by b's sigma)."""
    p = expected_score(a, b)
    fisher = C * C * p * (1.0 - p)
    return fisher / (1.0 + fisher * b.sigma**2)


def sigma_after(table: Sequence[Player[K]], units: int) -> tuple[float, ...]:
    """Each seat's expected sigma after a match of ``units`` units at ``table``."""
    shrink = units / (1.0 + PAIR_CORRELATION * (len(table) - 2))
    after = []
    for a in table:
        total = sum(information(a, b) for b in table if b is not a)
        after.append(1.0 / math.sqrt(1.0 / a.sigma**2 + shrink * total))
    return tuple(after)


Met = Mapping[tuple[K, K], int]


def evaluate(table: Sequence[Player[K]], units: int, met: Met[K] | None = None) -> Pick[K]:
    shrink = units / (1.0 + PAIR_CORRELATION * (len(table) - 2))
    return Pick(tuple(table), Pairs(met).gain(table, shrink), sigma_after(table, units))


def difference_gain(a: Player[K], b: Player[K], meetings: int, shrink: float) -> float:
    """How much one more match narrows the interval of the difference between a and b,
    weighted by how open their order still is.

    What is known of the difference before: both ratings' variances, plus the pair's own
    ``meetings`` (each a near-``information`` unit of the pair): V0 = 1 / (1 / (σa² + σb²)
    + meetings I); after one more match of ``shrink`` units, V1 = 1 / (1 / V0 + shrink I);
    the narrowing is sqrt(V0) - sqrt(V1), with I = c² p (1 - p), p softened by both
    deviations. The weight exp(-d² / (8 V0)), d the rating difference, fades a pair whose
    order is already clear (d well beyond 2 sqrt(V0)): I alone is nearly flat over the
    nearest few hundred Elo, and spent games on pairs two to four places apart.
    """
    p = expected_score(a, b)
    fisher = C * C * p * (1.0 - p)
    before = 1.0 / (1.0 / (a.sigma**2 + b.sigma**2) + meetings * fisher)
    after = 1.0 / (1.0 / before + shrink * fisher)
    d = a.mu - b.mu
    return (math.sqrt(before) - math.sqrt(after)) * math.exp(-d * d / (8.0 * before))


def choose(
    players: Sequence[Player[K]],
    size: int,
    tables: int,
    units: int = 1,
    target: float = 0.0,
    met: Met[K] | None = None,
    explore: random.Random | None = None,
) -> list[Pick[K]]:
    """Up to ``tables`` tables of ``size`` from ``players``, best first (see the module).

    ``met[a, b]`` (keys in either order): how often the two have met lately. Only tables
    with at least one unsettled player (sigma above ``target``) are played. Ties go to
    the players with fewer games, then to the order given. ``explore``: choose on ratings
    drawn around each player's (``explored``); the picks hold the players given.
    """
    if explore is not None:
        drawn = explored(players, explore, size)
        given = {id(d): p for d, p in zip(drawn, players, strict=True)}
        return [
            replace(pick, seats=tuple(given[id(p)] for p in pick.seats))
            for pick in choose(drawn, size, tables, units, target, met)
        ]
    left = list(players)
    picks: list[Pick[K]] = []
    pairs = Pairs(met)  # a pair's gain does not change as tables are picked: once each
    while len(picks) < tables and len(left) >= size:
        best = best_table(left, size, units, target, met, pairs)
        if best is None:
            break
        picks.append(best)
        chosen = {id(p) for p in best.seats}
        left = [p for p in left if id(p) not in chosen]
    return picks


def explored(players: Sequence[Player[K]], rng: random.Random, size: int = 2) -> list[Player[K]]:
    """The players with each rating drawn around it, normal with mean ``mu`` and standard
    deviation ``explore_spread`` x ``sigma`` (Thompson sampling, on a widened posterior).

    Chosen on the point ratings, the ladder plays the pairs its current errors make look
    close, again and again, and its ratings then err in the same direction together: on
    bench.ratings.calibration_ladder's 2-seat ladders the field's joint intervals covered 0.86-0.93
    (the stored ones 0.75-0.83) where the same games between random pairs covered
    0.94-0.98. Drawn ratings keep the tables near (a settled player moves little) while
    the pairs whose order is uncertain meet in proportion to that uncertainty, across
    clusters too: coverage 0.92-0.97 with 8 bots, and each rating's error a fifth smaller
    (two fifths with 50 bots; docs/ratings.md, "Joint uncertainty and the ladder"). The
    draw widens with the players at a table of ``size`` two (``explore_spread``)."""
    spread = explore_spread(len(players), size)
    return [replace(p, mu=p.mu + rng.gauss(0.0, spread * p.sigma)) for p in players]


def explore_spread(players: int, size: int = 2) -> float:
    """How many sigmas wide ``explored`` draws on a field of ``players`` at tables of
    ``size``: EXPLORE_SPREAD, and at two seats EXPLORE_SPREAD_LARGE from LARGE_FIELD
    players, linear between SMALL_FIELD and LARGE_FIELD (a field whose busy players come
    and go near a bound moves its draw a little, not by a step)."""
    if size != 2:
        return EXPLORE_SPREAD
    share = (players - SMALL_FIELD) / (LARGE_FIELD - SMALL_FIELD)
    share = min(max(share, 0.0), 1.0)
    return EXPLORE_SPREAD + share * (EXPLORE_SPREAD_LARGE - EXPLORE_SPREAD)


def best_table(
    players: Sequence[Player[K]],
    size: int,
    units: int,
    target: float,
    met: Met[K] | None = None,
    pairs: Pairs[K] | None = None,
) -> Pick[K] | None:
    """The most valuable table of ``players`` (``pairs``: the pair gains of this choice,
    shared by its tables)."""
    unsettled = [p for p in players if p.sigma > target]
    if not unsettled:
        return None
    pairs = pairs or Pairs(met)
    shrink = units / (1.0 + PAIR_CORRELATION * (size - 2))
    order = {id(p): i for i, p in enumerate(players)}

    left = {id(p) for p in players}
    best_pair = dict(
        zip(map(id, unsettled), pairs.best_of(unsettled, players, left, shrink), strict=True)
    )

    # Anchors: the unsettled players in the most valuable pairs (every pair is looked at).
    anchors = heapq.nsmallest(
        ANCHORS, unsettled, key=lambda p: (-best_pair[id(p)], p.games, order[id(p)])
    )
    tried = (complete(anchor, players, size, units, pairs) for anchor in anchors)
    candidates = [pick for pick in tried if pick is not None]

    def rank(pick: Pick[K]) -> tuple[float, int, int]:
        return (-pick.gain, sum(p.games for p in pick.seats), order[id(pick.seats[0])])

    return min(candidates, key=rank) if candidates else None


def complete(
    anchor: Player[K],
    players: Sequence[Player[K]],
    size: int,
    units: int,
    pairs: Pairs[K] | None = None,
) -> Pick[K] | None:
    """The anchor's table: each further seat goes to the player that adds most gain,
    never to one whose owner already has a seat there (None: no such table)."""
    pairs = pairs or Pairs()
    table = [anchor]
    shrink = units / (1.0 + PAIR_CORRELATION * (size - 2))
    while len(table) < size:
        best = pairs.best_seat(table, players, shrink)
        if best is None:
            return None
        table.append(best)
    # The most uncertain first: the same table found from two anchors is the same pick.
    seats = sorted(table, key=lambda p: -p.sigma)
    return Pick(tuple(seats), pairs.gain(seats, shrink), sigma_after(seats, units))


class Pairs(Generic[K]):
    """Each pair's ``difference_gain``, computed once per choice (tables share pairs).

    The gains of every pair of the players first looked at (the choice's, of which later
    tables' are a part) are one numpy matrix, made in one vectorised pass; the most
    valuable partner and the best next seat are then masked maxima over its rows (the
    ladder's 50-bot sites spent most of their time on these maxima, pair by pair, and a
    20,000-bot calibration cell hours). Players outside the matrix are scored one by one.
    """

    def __init__(self, met: Met[K] | None = None) -> None:
        self.met = met or {}
        self.index: dict[int, int] = {}
        self.players: list[Player[K]] = []
        self.matrix: np.ndarray = np.zeros((0, 0))
        self.allowed: np.ndarray = np.zeros((0, 0), dtype=bool)
        self.games: np.ndarray = np.zeros(0)
        self.shrink: float | None = None
        self._left: Collection[int] | None = None
        self._left_rows: np.ndarray = np.zeros(0, dtype=bool)

    def _cover(self, players: Sequence[Player[K]], shrink: float) -> None:
        """Make the matrix of ``players``' pair gains, once (the first players given)."""
        if self.shrink is not None:
            return
        self.shrink = shrink
        self.players = list(players)
        self.index = {id(p): i for i, p in enumerate(self.players)}
        self.matrix = gain_matrix(self.players, self.met, shrink)
        codes: dict[Hashable, int] = {}
        owner = np.array(  # house bots (no owner) each their own
            [
                -1 - i if p.owner is None else codes.setdefault(p.owner, len(codes))
                for i, p in enumerate(self.players)
            ],
            dtype=int,
        )
        self.allowed = owner[:, None] != owner[None, :]  # the diagonal too: no one twice
        self.games = np.array([p.games for p in self.players], dtype=float)

    def _rows(self, players: Sequence[Player[K]]) -> list[int] | None:
        """The matrix rows of ``players`` (None: one of them is not in it)."""
        rows = [self.index.get(id(p), -1) for p in players]
        return None if -1 in rows else rows

    def best(
        self, a: Player[K], players: Sequence[Player[K]], left: Collection[int], shrink: float
    ) -> float:
        """The most valuable pair of ``a`` with a player still ``left`` (by id)."""
        self._cover(players, shrink)
        rows = self._rows([a])
        if rows is None or shrink != self.shrink:
            gains = [
                self.pair(a, b, shrink)
                for b in players
                if b is not a and not same_owner(a, b) and id(b) in left
            ]
            return max(gains, default=0.0)
        mask = self.allowed[rows[0]] & self._members(left)
        return float(self.matrix[rows[0], mask].max()) if mask.any() else 0.0

    def best_of(
        self,
        anchors: Sequence[Player[K]],
        players: Sequence[Player[K]],
        left: Collection[int],
        shrink: float,
    ) -> list[float]:
        """``best`` of each of ``anchors``, in one masked maximum over the matrix."""
        self._cover(players, shrink)
        rows = self._rows(anchors)
        if rows is None or shrink != self.shrink:
            return [self.best(a, players, left, shrink) for a in anchors]
        at = np.array(rows, dtype=int)
        mask = self.allowed[at] & self._members(left)[None, :]
        found = np.where(mask, self.matrix[at], -np.inf).max(axis=1, initial=-np.inf)
        return [float(g) if g > -np.inf else 0.0 for g in found]

    def _members(self, ids: Collection[int]) -> np.ndarray:
        """The matrix rows still ``ids`` (the last set asked is kept: a table's anchors
        all ask with the same one)."""
        if self._left is not ids:
            found = np.zeros(len(self.players), dtype=bool)
            found[[i for key, i in self.index.items() if key in ids]] = True
            self._left, self._left_rows = ids, found
        return self._left_rows

    def best_seat(
        self, table: Sequence[Player[K]], players: Sequence[Player[K]], shrink: float
    ) -> Player[K] | None:
        """The player of ``players`` that adds most gain to ``table`` (ties: fewer games,
        then the order given), never one that shares an owner with a seat (None: none)."""
        self._cover(players, shrink)
        rows, candidates = self._rows(table), self._rows(players)
        if rows is None or candidates is None or shrink != self.shrink:
            return self._best_seat_one_by_one(table, players, shrink)
        at, cols = np.array(rows, dtype=int), np.array(candidates, dtype=int)
        allowed = self.allowed[np.ix_(at, cols)].all(axis=0)
        if not allowed.any():
            return None
        added = self.matrix[np.ix_(at, cols)].sum(axis=0)
        added = np.where(allowed, added, -np.inf)
        top = added.max()
        ties = np.flatnonzero(added == top)
        pick = ties[np.argmin(self.games[cols[ties]])]  # the first of the fewest
        return players[int(pick)]

    def _best_seat_one_by_one(
        self, table: Sequence[Player[K]], players: Sequence[Player[K]], shrink: float
    ) -> Player[K] | None:
        seated = {id(p) for p in table}
        best, best_key = None, (-math.inf, 0)
        for p in players:
            if id(p) in seated or any(same_owner(p, q) for q in table):
                continue
            key = (self.gain([*table, p], shrink), -p.games)
            if key > best_key:
                best, best_key = p, key
        return best

    def pair(self, a: Player[K], b: Player[K], shrink: float) -> float:
        rows = self._rows([a, b])
        if rows is not None and shrink == self.shrink:
            return float(self.matrix[rows[0], rows[1]])
        meetings = self.met.get((a.key, b.key), 0) or self.met.get((b.key, a.key), 0)
        return difference_gain(a, b, meetings, shrink)

    def gain(self, table: Sequence[Player[K]], shrink: float) -> float:
        """The table's gain: the sum over its pairs of ``difference_gain``."""
        return sum(
            self.pair(table[i], table[j], shrink)
            for i in range(len(table))
            for j in range(i + 1, len(table))
        )


def gain_matrix(players: Sequence[Player[K]], met: Met[K], shrink: float) -> np.ndarray:
    """``difference_gain`` of every pair of ``players`` at once (the diagonal is unused)."""
    mu = np.array([p.mu for p in players], dtype=float)
    variance = np.array([p.sigma for p in players], dtype=float) ** 2
    meetings = np.zeros((len(players), len(players)))
    index = {p.key: i for i, p in enumerate(players)}
    for (a, b), count in met.items():
        i, j = index.get(a), index.get(b)
        if i is not None and j is not None and count:
            meetings[i, j] = meetings[j, i] = count
    spread = variance[:, None] + variance[None, :]
    g = 1.0 / np.sqrt(1.0 + SOFTEN * spread)
    d = mu[:, None] - mu[None, :]
    p = 1.0 / (1.0 + np.exp(-C * g * d))
    fisher = C * C * p * (1.0 - p)
    before = 1.0 / (1.0 / spread + meetings * fisher)
    after = 1.0 / (1.0 / before + shrink * fisher)
    gains = (np.sqrt(before) - np.sqrt(after)) * np.exp(-d * d / (8.0 * before))
    upper = np.triu(gains, 1)  # one value a pair, whichever way round it is read
    return upper + upper.T
