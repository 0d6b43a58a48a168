"""The ladder's choice of tables: pure functions over players' ratings (no database).

The rule: **play the table whose results are expected to narrow the players' rating
intervals most** (docs/ladder.md). Each player is a rating ``mu`` and its standard
deviation ``sigma`` (Elo points). A table's gain is the sum over its seats of the expected
fall of sigma after one match, from a Gaussian (Laplace) approximation of the Elo model:

- one comparison unit between a and b carries Fisher information
  ``I = c² p (1 - p)`` about a's rating (``c = ln 10 / 400``), where p is a's expected
  score, itself softened by both players' uncertainty (Glicko's g factor): a near-even
  game teaches most, a mismatch almost nothing;
- the opponent's own uncertainty dilutes it: ``I / (1 + I σ_b²)`` (a result against an
  unknown opponent says little about either);
- at a table of n the n - 1 pairs of one placing are decided together, so their sum is
  divided by ``1 + 0.22 (n - 2)`` (the variance inflation the calibration study measured:
  1.44 at 4 seats, about 1.9 at 6);
- a match of ``units`` units (games or duplicate deals) adds that much information;
  the new sigma is ``1 / sqrt(1 / σ² + total)``.

So the most uncertain players (new bots and new versions) gain most and play first, and
each against the opponents nearest their rating whose own ratings are well known. Tables
are picked greedily: the best table, then the best among the players left (a player sits
at most one table of a pick; players already playing are left out by the caller). A
player whose sigma is at or below ``target`` is settled: it still serves as an opponent
but no table is played for it alone.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

#: Elo's logistic scale in natural units: P(win) = 1 / (1 + exp(-C (r_a - r_b))).
C = math.log(10.0) / 400.0
#: How much one placing's n - 1 pairs count together, per seat beyond two (measured by
#: bench_calibration: the sandwich was 1.2x the model's error at 4 seats, 1.45x at 6).
PAIR_CORRELATION = 0.22
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


def evaluate(table: Sequence[Player[K]], units: int) -> Pick[K]:
    after = sigma_after(table, units)
    gain = sum(p.sigma - s for p, s in zip(table, after, strict=True))
    return Pick(tuple(table), gain, after)


def choose(
    players: Sequence[Player[K]],
    size: int,
    tables: int,
    units: int = 1,
    target: float = 0.0,
) -> list[Pick[K]]:
    """Up to ``tables`` tables of ``size`` from ``players``, best first (see the module).

    Only tables with at least one unsettled player (sigma above ``target``) are played.
    Ties go to the players with fewer games, then to the order given.
    """
    left = list(players)
    picks: list[Pick[K]] = []
    while len(picks) < tables and len(left) >= size:
        best = best_table(left, size, units, target)
        if best is None:
            break
        picks.append(best)
        chosen = {id(p) for p in best.seats}
        left = [p for p in left if id(p) not in chosen]
    return picks


def best_table(
    players: Sequence[Player[K]], size: int, units: int, target: float
) -> Pick[K] | None:
    anchors = [p for p in players if p.sigma > target]
    if not anchors:
        return None
    order = {id(p): i for i, p in enumerate(players)}
    anchors = heapq.nsmallest(ANCHORS, anchors, key=lambda p: (-p.sigma, p.games, order[id(p)]))
    candidates = (complete(anchor, players, size, units) for anchor in anchors)

    def rank(pick: Pick[K]) -> tuple[float, int, int]:
        return (-pick.gain, sum(p.games for p in pick.seats), order[id(pick.seats[0])])

    return min(candidates, key=rank)


def complete(anchor: Player[K], players: Sequence[Player[K]], size: int, units: int) -> Pick[K]:
    """The anchor's table: each further seat goes to the player that adds most gain.

    The information between two players is computed once per call (``Pairs``): a seat's
    candidates are scored by the table's gain with each of them added.
    """
    pairs = Pairs()
    table = [anchor]
    shrink = units / (1.0 + PAIR_CORRELATION * (size - 2))
    while len(table) < size:
        seated = {id(p) for p in table}
        best, best_key = None, (-math.inf, 0)
        for p in players:
            if id(p) in seated:
                continue
            key = (pairs.gain([*table, p], shrink), -p.games)
            if key > best_key:
                best, best_key = p, key
        assert best is not None  # the caller leaves at least ``size`` players
        table.append(best)
    # The most uncertain first: the same table found from two anchors is the same pick.
    return evaluate(sorted(table, key=lambda p: -p.sigma), units)


class Pairs:
    """``information`` of each ordered pair, computed once (tables share their pairs)."""

    def __init__(self) -> None:
        self.known: dict[tuple[int, int], float] = {}

    def info(self, a: Player[K], b: Player[K]) -> float:
        key = (id(a), id(b))
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = information(a, b)
        return found

    def gain(self, table: Sequence[Player[K]], shrink: float) -> float:
        """The table's gain, as ``evaluate`` computes it (``shrink``: units / inflation)."""
        total = 0.0
        for a in table:
            info = sum(self.info(a, b) for b in table if b is not a)
            total += a.sigma - 1.0 / math.sqrt(1.0 / (a.sigma * a.sigma) + shrink * info)
        return total
