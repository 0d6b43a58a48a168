"""A toy game for referee tests: seats take 1 or 2 in turn from a pile; the last taker wins.

The pile's size depends on the seed, so different deals differ; the winner scores
players-1 and everyone else -1 (zero-sum), so totals and places are easy to check.
"""

from __future__ import annotations

import random

from judge.cards import make_deck
from judge.engine import Action, Game, JSONDict, Result
from judge.options import int_option


class Race(Game):
    name = "race"
    min_players = 2
    max_players = 7
    option_schema = (int_option("size", 9, 1, 100, "the pile's smallest size"),)

    def _setup(self) -> None:
        self.deck = self.shuffle(make_deck(), 0)
        self.left = self.options["size"] + self.deck[0].rank % 5
        self.turn = 0

    def to_act(self) -> tuple[int, ...]:
        return () if self.is_over() else (self.turn,)

    def observation(self, seat: int) -> JSONDict:
        return {"left": self.left, "turn": self.turn, "seat": seat}

    def legal_actions(self, seat: int) -> list[Action]:
        return ["1", "2"][: min(2, self.left)] if seat in self.to_act() else []

    def _apply(self, seat: int, action: Action) -> None:
        self.left -= int(str(action))
        if self.left:
            self.turn = (seat + 1) % self.players
        else:
            self.turn = seat

    def fallback_action(self, seat: int) -> Action:
        return "1"

    def redeal_unseen(self, seat: int, rng: random.Random) -> bool:
        return False  # nothing is hidden: the pile's size is public

    def is_over(self) -> bool:
        return self.left == 0

    def result(self) -> Result:
        winner = self.turn
        return Result.from_scores(
            [self.players - 1 if s == winner else -1 for s in range(self.players)]
        )

    def revealed(self) -> JSONDict:
        return {"top": str(self.deck[0])}


def make_race(seed: int, players: int, variant: str | None, options: object) -> Game:
    return Race(seed, players=players, variant=variant, options=options)  # type: ignore[arg-type]
