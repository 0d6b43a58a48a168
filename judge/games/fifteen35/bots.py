"""House bots for Fifteen Thirty-Five.

``greedy`` plays the hand it holds: it measures how far its best total is from the nearer
target, draws while a card is expected to bring it closer, bets and raises when close,
folds a hand facing a bet that is far away and unlikely to improve, and declares the side
it is nearest to (both only when it is dead on both).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any, Final

from judge.bots import PolicyFactory
from judge.cards import Card, make_deck, parse_cards
from judge.engine import Action
from judge.games.fifteen35.scoring import (
    TARGET_15,
    TARGET_35,
    Shape,
    best_total,
    hand_shape,
    reachable_totals,
    shape_totals,
    with_rank,
)

#: Distances are in half-points (2 per point).
_STRONG: Final = 2  # within 1 point: bet and raise
_FAIR: Final = 5  # within 2.5 points: happy to call
_HOPELESS: Final = 8  # more than 4 points away (after an expected draw): fold to a bet
_DECK: Final = tuple(make_deck())


def distances(cards: list[Card]) -> tuple[int, int]:
    """How far (half-points) the best totals are from 15 and from 35."""
    totals = reachable_totals(cards)
    return (
        abs(best_total(totals, TARGET_15) - TARGET_15),
        abs(best_total(totals, TARGET_35) - TARGET_35),
    )


def gap(cards: list[Card]) -> int:
    """Distance to the nearer target; a natural is 0."""
    return _shape_gap(hand_shape(cards))


@cache
def _shape_gap(shape: Shape) -> int:
    """``gap`` of a hand of this shape (its totals are all that decide it; a few thousand
    shapes in all, so every one is kept)."""
    totals = shape_totals(shape)
    if TARGET_15 in totals and TARGET_35 in totals:  # a natural (scoring.is_natural)
        return 0
    return min(
        abs(best_total(totals, TARGET_15) - TARGET_15),
        abs(best_total(totals, TARGET_35) - TARGET_35),
    )


def expected_gap_after_draw(cards: list[Card], unseen: list[Card]) -> float:
    """The mean gap if one more card came from the cards this seat has not seen.

    Only a card's rank changes the gap, so each rank's gap is found once and counted as
    often as that rank is unseen (the same sum of ints as card by card, so the same mean).
    """
    if not unseen:
        return float(gap(cards))
    shape = hand_shape(cards)
    ranks = Counter(card.rank for card in unseen)
    return sum(n * _shape_gap(with_rank(shape, rank)) for rank, n in ranks.items()) / len(unseen)


class GreedyPolicy:
    """Plays its own cards: draw towards the nearer target, bet when close, fold when far."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # greedy is deterministic; the seed is kept for the interface

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        seat = observation["seat"]
        hidden = parse_cards(observation["hidden"])
        mine = hidden + parse_cards(observation["exposed"][seat])
        phase = observation["phase"]
        if phase == "expose":
            return self._expose(hidden, legal)
        if phase == "declare":
            return self._declare(mine)
        seen = set(mine) | {c for cards in observation["exposed"] for c in parse_cards(cards)}
        unseen = [c for c in _DECK if c not in seen]
        if phase == "offer":
            improves = expected_gap_after_draw(mine, unseen) < gap(mine)
            return "take" if improves else "refuse"
        return self._bet(mine, unseen, observation, legal)

    def _expose(self, hidden: list[Card], legal: list[Action]) -> Action:
        """Show the plainest card: keep Aces and pictures (the dual values) hidden."""
        plain = [c for c in hidden if len(reachable_totals([c])) == 1]
        shown = min(plain or hidden, key=lambda c: c.rank)
        choice = f"expose {shown}"
        return choice if choice in legal else legal[0]

    def _declare(self, mine: list[Card]) -> Action:
        d15, d35 = distances(mine)
        if d15 <= 1 and d35 <= 1:
            return "both"
        return "15" if d15 < d35 else "35"

    def _bet(
        self, mine: list[Card], unseen: list[Card], observation: dict[str, Any], legal: list[Action]
    ) -> Action:
        now = gap(mine)
        frozen = observation["frozen"][observation["seat"]]
        can_draw = not observation["final_round"] and not frozen and observation["stock"] > 0
        hope = min(now, expected_gap_after_draw(mine, unseen)) if can_draw else now
        if "check" in legal:
            return "bet" if now <= _STRONG else "check"
        if now <= _STRONG and "raise" in legal:
            return "raise"
        if hope > _HOPELESS or (now > _FAIR and observation["final_round"]):
            return "fold"
        return "call"


POLICIES: dict[str, PolicyFactory] = {"greedy": GreedyPolicy}
