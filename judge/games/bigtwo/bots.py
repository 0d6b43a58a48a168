"""Big Two house bots.

``greedy`` sheds cards cheaply: it leads the biggest combination that gets rid of its
lowest card, follows with the weakest play that beats the trick, keeps its 2s and its pairs
and triples whole while nobody is close to going out, and fights with its strongest cards
once someone is. It reads only its observation and the legal actions.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import judge.bots
from judge.bots import PolicyFactory
from judge.engine import Action
from judge.games.bigtwo.combos import CARD_ID

PASS = "pass"
#: An opponent with this many cards or fewer may go out soon: stop saving strong cards.
CLOSE_TO_OUT = 3


def _is_two(card: str) -> bool:
    return card[0] == "2"


class GreedyPolicy:
    """Shed low cards first, beat cheaply, keep 2s for the end (see the module docstring)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        plays = [action for action in legal if isinstance(action, list)]
        if not plays:
            return PASS
        hand: list[str] = observation["hand"]
        finishing = [play for play in plays if len(play) == len(hand)]
        if finishing:
            return finishing[0]
        seat = observation["seat"]
        danger = min(n for s, n in enumerate(observation["counts"]) if s != seat) <= CLOSE_TO_OUT
        if observation["trick"] is None:
            return self._lead(plays, hand, danger)
        return self._follow(plays, hand, danger)

    def _lead(self, plays: list[list[str]], hand: list[str], danger: bool) -> Action:
        """The biggest play holding the lowest card, without 2s if possible, weakest first."""
        if danger:  # singles are easy to beat for a player about to go out
            multi = [play for play in plays if len(play) > 1]
            if multi:
                return max(multi, key=lambda play: (len(play), -plays.index(play)))
            return plays[-1]
        lowest = min(hand, key=CARD_ID.__getitem__)
        with_lowest = [play for play in plays if lowest in play]
        keep_twos = [play for play in with_lowest if not any(map(_is_two, play))]
        choices = keep_twos or with_lowest
        return max(
            choices, key=lambda play: (len(play), -self._cost(play, hand), -plays.index(play))
        )

    def _follow(self, plays: list[list[str]], hand: list[str], danger: bool) -> Action:
        """The cheapest play that beats the trick, or pass when only costly ones would."""
        if danger:
            return plays[-1] if len(plays[-1]) == 1 else plays[0]
        cheap = [play for play in plays if self._cost(play, hand) == 0]
        if cheap:
            return cheap[0]
        if len(hand) <= 2 * CLOSE_TO_OUT:
            return min(plays, key=lambda play: (self._cost(play, hand), plays.index(play)))
        return PASS

    @staticmethod
    def _cost(play: list[str], hand: list[str]) -> int:
        """How much a play spends: 2s used, and pairs or triples broken to make it."""
        counts = Counter(card[0] for card in hand)
        used = Counter(card[0] for card in play)
        broken = sum(1 for rank, n in used.items() if 1 < counts[rank] != n and len(play) < 5)
        return 2 * sum(map(_is_two, play)) + broken


class SpreadPolicy(judge.bots.SpreadPolicy):
    """The check's further opponent in Big Two: the shared ``spread`` (a kind of action
    first, then one of it), except that it keeps its triples whole and leads one whenever
    it holds one. A triple is in under half the hands and the shared spread leads it in a
    quarter of its leads at most, so a checked bot followed a triple fewer than 3 times in
    a fifth of its checks (issue 46; bench/engines/check_situations.py measures it)."""

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        triples = [action for action in legal if isinstance(action, list) and len(action) == 3]
        if triples and observation["trick"] is None:
            return self.rng.choice(triples)
        kept = _triple_ranks(observation["hand"])
        whole = [
            action
            for action in legal
            if not isinstance(action, list) or len(action) == 3 or not kept & _ranks(action)
        ]
        return super().act(observation, whole or legal)


def _ranks(cards: list[str]) -> set[str]:
    return {card[0] for card in cards}


def _triple_ranks(hand: list[str]) -> set[str]:
    """The ranks of which ``hand`` holds three or four cards."""
    return {rank for rank, n in Counter(card[0] for card in hand).items() if n >= 3}


POLICIES: dict[str, PolicyFactory] = {"greedy": GreedyPolicy}
#: House bots the service gives a match itself, never listed (judge.bots.UNLISTED).
UNLISTED: dict[str, PolicyFactory] = {"spread": SpreadPolicy}
