"""Oceans 11 house bots.

Cards are the game's currency: every hand won costs the cards dealt to win it, and the
player who runs out first hands the rest of the game to the other. ``greedy`` looks at
the cards it may still turn (its deck is known as a multiset: the full deck minus the
cards it has used) and deals while enough of them would lift its row level with or above
the opponent's at once; otherwise the hand is close to hopeless and it concedes it for
the cards already spent. ``montecarlo`` plays the rest of the hand many times after
dealing, with the unseen cards dealt at random (consistent with what its seat has seen)
and both sides playing a sampled version of ``greedy``, and values where each playout
leaves the game (wins and cards left, see :func:`position_value`) against conceding now;
it keeps greedy's choice unless the playouts clearly favour the other one. Valuing the
position after the hand, rather than playing whole games out, is what makes a few dozen
playouts enough: a whole game's result is mostly the luck of later hands.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from judge.bots import PolicyFactory
from judge.cards import JOKER, Card, parse_cards
from judge.engine import Action
from judge.games.oceans11 import CONCEDE, DEAL, VARIANTS, VariantSpec
from judge.hands import HandRow, prepare

#: greedy deals while at least this share of the cards it may turn next would catch up
#: (measured against random: 0.3 gives about +120 Elo, 0.1 about +400, 0 loses)
CATCH_UP: Final = 0.1
#: montecarlo: pairs of playouts per decision, and a time cap per decision (seconds)
PLAYOUTS: Final = 60
TIME_CAP: Final = 0.03
#: montecarlo overrides greedy's choice only when the playouts favour the other choice by
#: more than this many standard errors
CONFIDENCE: Final = 1.0
#: montecarlo's value of a position between hands (see position_value): fit by logistic
#: regression to 52,794 hand starts of 3,000 greedy-against-greedy games (standard variant)
CARD_WEIGHT: Final = 5.63
WIN_WEIGHT: Final = 1.79
#: cards a simulated greedy samples from its deck (below the top card) to judge its chances:
#: dealing when any of 7 catches up is greedy's rule at a share of about 1 - 0.5 ** (1/7) ~ 0.1
PEEKS: Final = 7


def catch_up_share(row: HandRow, theirs: int, cards: Sequence[Card]) -> float:
    """The share of ``cards`` that, turned next, make ``row`` score at least ``theirs``."""
    if not cards:
        return 0.0
    good = 0
    for c, n in Counter(cards).items():
        trial = row.copy()
        trial.add(c)
        if trial.score >= theirs:
            good += n
    return good / len(cards)


def sampled_catch_up(
    row: HandRow, theirs: int, cards: Sequence[Card], count: int, rng: random.Random
) -> bool:
    """Whether any of ``PEEKS`` cards drawn from ``cards[:count]`` lifts ``row`` to
    ``theirs``: greedy's rule for simulations, without counting every card. With no card
    to draw from, True (the last card costs nothing to turn)."""
    if count <= 0:
        return True
    for _ in range(PEEKS):
        trial = row.copy()
        trial.add(cards[int(rng.random() * count)])
        if trial.score >= theirs:
            return True
    return False


class GreedyPolicy:
    """Deal while a good share of the cards left would catch up (module docstring)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        if CONCEDE not in legal:
            return DEAL
        me = observation["seat"]
        spec = VARIANTS[observation["variant"]]
        owned, pool = unseen_cards(observation, spec)
        rows = observation["rows"]
        row = HandRow(parse_cards(rows[me]), spec.wilds)
        theirs = HandRow(parse_cards(rows[1 - me]), spec.wilds).score
        share = catch_up_share(row, theirs, owned[me] + pool)
        return DEAL if share >= CATCH_UP else CONCEDE


class MonteCarloPolicy:
    """Choose by playing the rest of the game out under both choices (module docstring)."""

    def __init__(self, seed: int = 0, playouts: int = PLAYOUTS, time_cap: float = TIME_CAP):
        self.rng = random.Random(seed)
        self.playouts = playouts
        self.time_cap = time_cap
        self.greedy = GreedyPolicy(seed)
        prepare()  # so that no move pays for building the hand tables

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        if CONCEDE not in legal:
            return DEAL
        me = observation["seat"]
        spec = VARIANTS[observation["variant"]]
        rows = [parse_cards(row) for row in observation["rows"]]
        wins, sizes = observation["wins"], observation["deck_sizes"]
        conceded = list(wins)
        conceded[1 - me] += 1
        concede = position_value(conceded, sizes, spec.target, me)
        unseen = unseen_cards(observation, spec)
        gains: list[float] = []  # per sampled deal: the value after dealing, minus conceding
        stop = time.perf_counter() + self.time_cap
        for _ in range(self.playouts):
            if time.perf_counter() > stop:
                break
            playout = Playout(spec, rows, self._deal(unseen, sizes), wins, self.rng.random())
            after, left = playout.finish_hand(me, DEAL)
            gains.append(position_value(after, left, spec.target, me) - concede)
        prior = self.greedy.act(observation, legal)
        if len(gains) < 2:
            return prior
        mean = statistics.fmean(gains)
        error = statistics.pstdev(gains) / math.sqrt(len(gains))
        if mean == 0 or abs(mean) <= CONFIDENCE * error:
            return prior
        return DEAL if mean > 0 else CONCEDE

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


def position_value(wins: Sequence[int], left: Sequence[int], target: int, seat: int) -> float:
    """``seat``'s chance to win the game between hands, from the wins and the cards left.

    Exact when the game is decided or a deck is empty (the other seat then wins a hand per
    card it holds); otherwise a logistic fit to greedy-against-greedy games:
    ``CARD_WEIGHT * log((cards + 1) / (their cards + 1)) + WIN_WEIGHT * log(their hands
    needed / hands needed)``."""
    other = 1 - seat
    if wins[seat] >= target or wins[other] >= target or not left[0] or not left[1]:
        final = list(wins)
        for s in range(2):
            if not left[1 - s]:
                final[s] = min(target, final[s] + left[s])
        return 1.0 if final[seat] > final[other] else 0.0 if final[seat] < final[other] else 0.5
    cards = math.log((left[seat] + 1) / (left[other] + 1))
    needs = math.log((target - wins[other]) / (target - wins[seat]))
    return 1 / (1 + math.exp(-(CARD_WEIGHT * cards + WIN_WEIGHT * needs)))


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
    """A bare, fast copy of the Oceans 11 rules for simulation (the engine stays the judge).

    Both sides play greedy, judging their chances by :func:`sampled_catch_up` with a
    generator seeded by ``seed``: the same seed replays the same game."""

    def __init__(
        self,
        spec: VariantSpec,
        rows: list[list[Card]],
        decks: list[list[Card]],
        wins: list[int],
        seed: float = 0,
    ) -> None:
        self.rng = random.Random(seed)
        self.wilds = spec.wilds
        self.target = spec.target
        self.rows = [HandRow(row, spec.wilds) for row in rows]
        self.decks = [list(reversed(deck)) for deck in decks]  # pop() turns the top card
        self.wins = list(wins)
        self.open = True

    def finish(self, seat: int, action: str) -> list[float]:
        """Apply ``seat``'s ``action``, then play greedy for both sides; the points per seat."""
        self._play(seat, action, whole_game=True)
        return self._points()

    def finish_hand(self, seat: int, action: str) -> tuple[list[int], list[int]]:
        """Apply ``seat``'s ``action``, then play greedy for both sides to the end of this
        hand; the wins and the cards left per seat then."""
        self._play(seat, action, whole_game=False)
        return self.wins, [len(deck) for deck in self.decks]

    def _play(self, seat: int, action: str, whole_game: bool) -> None:
        if action == DEAL:
            self._turn(seat)
        elif self._win(1 - seat) or not whole_game:
            return
        while True:
            decider = self._step(whole_game)
            if decider is None:
                return
            if self.wins[1 - decider] >= self.target - 1 or self.greedy_deals(decider):
                self._turn(decider)
            elif self._win(1 - decider) or not whole_game:
                return

    def greedy_deals(self, seat: int) -> bool:
        """Greedy's choice for ``seat``, judged from cards below its deck's top (the top
        card is the one it would turn, which greedy cannot know)."""
        deck = self.decks[seat]  # reversed: the top card is last
        theirs = self.rows[1 - seat].score
        return sampled_catch_up(self.rows[seat], theirs, deck, len(deck) - 1, self.rng)

    def _step(self, whole_game: bool = True) -> int | None:
        """Forced steps until a seat decides (its seat) or the game ends (None); or, unless
        ``whole_game``, until this hand ends (None)."""
        decks, rows = self.decks, self.rows
        while True:
            if not self.open:
                if not whole_game:
                    return None
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
