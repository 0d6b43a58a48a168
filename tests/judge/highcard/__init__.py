"""High Card: a toy fourth game, defined only in the tests, that proves the plugin contract.

Two players; each round both get one face-down card. The first to speak (alternating by
round) says "play" or "fold", then the other does. A fold gives the other player 1 point;
two plays show both cards and the higher rank takes 2 (equal ranks: nobody scores). The
loser pays what the winner takes (zero-sum). Variant ``aces-low`` ranks the ace below the 2.

Nothing outside this module and its registration (``register(HighCard)``) knows the game:
the conformance suite, the service, the check and the replay page all work from the class.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from judge.cards import Card, make_deck
from judge.engine import Action, Game, GameError, JSONDict, Result, Seat, redeal
from judge.options import int_option

PLAY = "play"
FOLD = "fold"
ACE = 12


class HighCard(Game):
    """The High Card engine (see the module docstring)."""

    name = "highcard"
    title = "High Card"
    variants: ClassVar[tuple[str, ...]] = ("standard", "aces-low")
    variant_titles: ClassVar[Mapping[str, str]] = {
        "standard": "Aces high",
        "aces-low": "Aces low",
    }
    option_schema = (int_option("rounds", 3, 1, 10, "rounds in one game"),)
    private_keys = ("card",)
    zero_sum = True
    demo_format: ClassVar[Mapping[str, Any]] = {"table_size": 2, "games_per_pairing": 1}
    check_options: ClassVar[Mapping[str, Any]] = {"rounds": 1}
    moves_per_game = 2
    repeat_options = ("rounds",)
    renderer = "highcard"

    def _setup(self) -> None:
        self.scores = [0, 0]
        self.past: list[JSONDict] = []
        self.dealt: list[list[str]] = []
        self.round = -1
        self.over = False
        self._deal()

    def _deal(self) -> None:
        self.round += 1
        deck = self.shuffle(make_deck(), "round", self.round)
        self.cards: list[Card] = deck[:2]
        self.rest: list[Card] = deck[2:]
        self.said: dict[Seat, str] = {}
        self.turn: Seat = self.round % 2

    def _rank(self, seat: Seat) -> int:
        rank = self.cards[seat].rank
        return -1 if self.variant == "aces-low" and rank == ACE else rank

    def to_act(self) -> tuple[Seat, ...]:
        return () if self.over else (self.turn,)

    def legal_actions(self, seat: Seat) -> list[Action]:
        return [PLAY, FOLD] if seat in self.to_act() else []

    def fallback_action(self, seat: Seat) -> Action:
        return FOLD

    def _apply(self, seat: Seat, action: Action) -> None:
        self.said[seat] = str(action)
        if action == FOLD:
            self._settle(winner=1 - seat, points=1, shown=False)
        elif len(self.said) == 2:
            mine, theirs = self._rank(0), self._rank(1)
            self._settle(None if mine == theirs else int(theirs > mine), 2, shown=True)
        else:
            self.turn = 1 - seat

    def _settle(self, winner: Seat | None, points: int, shown: bool) -> None:
        self.dealt.append([str(c) for c in self.cards])
        if winner is not None:
            self.scores[winner] += points
            self.scores[1 - winner] -= points
        self.past.append(
            {
                "said": {str(s): said for s, said in sorted(self.said.items())},
                "cards": [str(c) for c in self.cards] if shown else None,
                "winner": winner,
            }
        )
        if self.round + 1 < self.options["rounds"]:
            self._deal()
        else:
            self.over = True

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise GameError("the High Card game is not over yet")
        return Result.from_scores(self.scores)

    def observation(self, seat: Seat) -> JSONDict:
        """Own card, what was said this round, the scores and the past rounds."""
        return {
            "seat": seat,
            "round": self.round,
            "rounds": self.options["rounds"],
            "card": None if self.over else str(self.cards[seat]),
            "said": {str(s): said for s, said in sorted(self.said.items())},
            "to_act": None if self.over else self.turn,
            "scores": list(self.scores),
            "past": [dict(done) for done in self.past],
        }

    def redeal_unseen(self, seat: Seat, rng: random.Random) -> bool:
        """Deal the other player's card and the rest of the pack anew."""
        other = 1 - seat
        (card, self.rest), moved = redeal([[self.cards[other]], self.rest], rng)
        self.cards[other] = card[0]
        return moved

    def revealed(self) -> JSONDict:
        """Every round's cards, folded ones too."""
        return {"rounds": [dict(done) for done in self.past], "dealt": self.dealt}
