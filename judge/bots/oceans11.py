"""Oceans 11 house bots.

Cards are the game's currency: every hand won costs the cards dealt to win it, and the
player who runs out first hands the rest of the game to the other. ``greedy`` keeps to a
rule: it deals to catch up with the number of cards the opponent has put into the hand,
but never so far that it would hold fewer cards than the opponent. ``montecarlo``
plays the rest of the game many times for each choice, with the unseen cards dealt at
random (consistent with what its seat has seen) and both sides playing ``greedy``, and
takes the choice that wins more often; the same deals serve both choices, so the
comparison is not drowned in luck.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any, Final

from judge.bots import PolicyFactory
from judge.cards import JOKER, Card, parse_cards
from judge.engine import Action
from judge.games.oceans11 import CONCEDE, DEAL, VARIANTS, VariantSpec
from judge.hands import HandRow, prepare

#: montecarlo: pairs of playouts per decision, and a time cap per decision (seconds)
PLAYOUTS: Final = 60
TIME_CAP: Final = 0.03


def wants_to_deal(mine: int, theirs: int, left: int, their_left: int) -> bool:
    """Greedy's rule for the weaker row, from the cards in this hand's rows (``mine``,
    ``theirs``) and in the decks (``left``, ``their_left``): catch up to the opponent's
    card count, but never fall behind them in cards left, since running out first loses
    a hand per card the other still holds."""
    return mine <= theirs and left - 1 >= their_left


class GreedyPolicy:
    """Deal within a card budget, concede beyond it (see the module docstring)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        if CONCEDE not in legal:
            return DEAL
        me = observation["seat"]
        rows = observation["rows"]
        sizes = observation["deck_sizes"]
        deal = wants_to_deal(len(rows[me]), len(rows[1 - me]), sizes[me], sizes[1 - me])
        return DEAL if deal else CONCEDE


class MonteCarloPolicy:
    """Choose by playing the rest of the game out under both choices (module docstring)."""

    def __init__(self, seed: int = 0, playouts: int = PLAYOUTS, time_cap: float = TIME_CAP):
        self.rng = random.Random(seed)
        self.playouts = playouts
        self.time_cap = time_cap
        prepare()  # so that no move pays for building the hand tables

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        if CONCEDE not in legal:
            return DEAL
        me = observation["seat"]
        spec = VARIANTS[observation["variant"]]
        rows = [parse_cards(row) for row in observation["rows"]]
        unseen = unseen_cards(observation, spec)
        won = {DEAL: 0.0, CONCEDE: 0.0}
        stop = time.perf_counter() + self.time_cap
        for _ in range(self.playouts):
            if time.perf_counter() > stop:
                break
            decks = self._deal(unseen, observation["deck_sizes"])
            for action in (DEAL, CONCEDE):
                game = Playout(spec, rows, decks, observation["wins"])
                won[action] += game.finish(me, action)[me]
        if won[DEAL] == won[CONCEDE]:
            return GreedyPolicy().act(observation, legal)
        return DEAL if won[DEAL] > won[CONCEDE] else CONCEDE

    def _deal(self, unseen: Unseen, sizes: list[int]) -> list[list[Card]]:
        """Random decks for both seats, consistent with what has been seen."""
        owned, pool = unseen
        pool = pool.copy()
        self.rng.shuffle(pool)
        decks = []
        for seat in range(2):
            take = sizes[seat] - len(owned[seat])
            deck = owned[seat] + pool[:take]
            del pool[:take]
            self.rng.shuffle(deck)
            decks.append(deck)
        return decks


#: The unseen cards: those known to be in each seat's deck, and a pool shared between them.
Unseen = tuple[list[list[Card]], list[Card]]


def unseen_cards(observation: dict[str, Any], spec: VariantSpec) -> Unseen:
    """What is left to turn. Each seat owns its deck (and, in split variants, its joker);
    in split variants which half holds a natural card is unknown, so those share a pool."""
    seen = [
        parse_cards(observation["used"][s]) + parse_cards(observation["rows"][s]) for s in range(2)
    ]
    if not spec.split:
        return [_minus(spec.deck(), seen[0]), _minus(spec.deck(), seen[1])], []
    jokers = [[JOKER] * (spec.jokers - seen[s].count(JOKER)) for s in range(2)]
    naturals = [c for c in seen[0] + seen[1] if not c.is_joker]
    return jokers, _minus(spec.deck(), naturals)


def _minus(cards: list[Card], gone: list[Card]) -> list[Card]:
    left = Counter(cards)
    left.subtract(gone)
    return [c for c, n in left.items() for _ in range(n)]


class Playout:
    """A bare, fast copy of the Oceans 11 rules for simulation (the engine stays the judge)."""

    def __init__(
        self, spec: VariantSpec, rows: list[list[Card]], decks: list[list[Card]], wins: list[int]
    ) -> None:
        self.wilds = spec.wilds
        self.target = spec.target
        self.rows = [HandRow(row, spec.wilds) for row in rows]
        self.decks = [list(reversed(deck)) for deck in decks]  # pop() turns the top card
        self.wins = list(wins)
        self.open = True

    def finish(self, seat: int, action: str) -> list[float]:
        """Apply ``seat``'s ``action``, then play greedy for both sides; the points per seat."""
        if action == DEAL:
            self._turn(seat)
        elif self._win(1 - seat):
            return self._points()
        while True:
            decider = self._step()
            if decider is None:
                return self._points()
            rows = self.rows
            must = self.wins[1 - decider] >= self.target - 1
            if must or wants_to_deal(
                len(rows[decider].cards),
                len(rows[1 - decider].cards),
                len(self.decks[decider]),
                len(self.decks[1 - decider]),
            ):
                self._turn(decider)
            elif self._win(1 - decider):
                return self._points()

    def _step(self) -> int | None:
        """Forced steps until a seat decides (its seat) or the game ends (None)."""
        decks, rows = self.decks, self.rows
        while True:
            if not self.open:
                if decks[0] and decks[1]:
                    self._turn(0)
                    self._turn(1)
                    self.open = True
                    continue
                if not decks[0] and not decks[1]:
                    return None
                runner = 0 if decks[0] else 1
                self._turn(runner)
                if self._win(runner):
                    return None
                continue
            a, b = rows[0].score, rows[1].score
            if a == b:
                if decks[0] and decks[1]:
                    self._turn(0)
                    self._turn(1)
                    continue
                if not decks[0] and not decks[1]:
                    return None
                if self._win(0 if decks[0] else 1):
                    return None
                continue
            weaker = 0 if a < b else 1
            if decks[weaker]:
                return weaker
            if self._win(1 - weaker):
                return None

    def _turn(self, seat: int) -> None:
        self.rows[seat].add(self.decks[seat].pop())

    def _win(self, seat: int) -> bool:
        """Give ``seat`` the hand and clear the rows; whether the game is now over."""
        self.wins[seat] += 1
        self.rows = [HandRow((), self.wilds), HandRow((), self.wilds)]
        self.open = False
        return self.wins[seat] >= self.target

    def _points(self) -> list[float]:
        a, b = self.wins
        return [1.0, 0.0] if a > b else [0.0, 1.0] if b > a else [0.5, 0.5]


POLICIES: dict[str, PolicyFactory] = {"greedy": GreedyPolicy, "montecarlo": MonteCarloPolicy}
