"""The common engine interface, exercised through a toy game written here.

The toy: two seats alternately take 1 or 2 from a pile dealt from the seed; whoever
takes the last one wins. It is only here to pin the base class's shared behaviour.
"""

import random
import re

import pytest

from judge.cards import make_deck
from judge.engine import Action, Game, GameError, IllegalActionError, JSONDict, Result, redeal
from judge.games import GAME_CLASSES, GAMES, game_class, register, register_plugins, unregister
from judge.options import int_option
from tests.judge.highcard import HighCard


class Pile(Game):
    name = "pile"
    option_schema = (int_option("size", 7, 1, 50),)

    def _setup(self) -> None:
        self.deck = self.shuffle(make_deck(), 0)
        self.left = self.options["size"] + self.deck[0].rank % 3
        self.turn = 0

    def to_act(self) -> tuple[int, ...]:
        return () if self.is_over() else (self.turn,)

    def observation(self, seat: int) -> JSONDict:
        return {"left": self.left, "turn": self.turn}

    def legal_actions(self, seat: int) -> list[Action]:
        return ["1", "2"][: min(2, self.left)] if seat in self.to_act() else []

    def _apply(self, seat: int, action: Action) -> None:
        self.left -= int(str(action))
        self.turn = 1 - seat if self.left else seat

    def fallback_action(self, seat: int) -> Action:
        return "1"

    def redeal_unseen(self, seat: int, rng: random.Random) -> bool:
        return False  # nothing is hidden: the pile's size is public

    def is_over(self) -> bool:
        return self.left == 0

    def result(self) -> Result:
        return Result.from_scores([int(s == self.turn) for s in range(2)])

    def revealed(self) -> JSONDict:
        return {}


def test_it_refuses_an_action_out_of_turn_saying_why() -> None:
    game = Pile(seed=1)
    with pytest.raises(IllegalActionError, match="not seat 1's turn"):
        game.apply(1, "1")
    with pytest.raises(IllegalActionError, match="not one of the legal actions"):
        game.apply(0, "3")
    assert game.history == []


def test_it_refuses_unknown_options_variants_and_table_sizes() -> None:
    with pytest.raises(GameError, match="no option 'colour'"):
        Pile(seed=1, options={"colour": "red"})
    with pytest.raises(GameError, match="no variant 'big'"):
        Pile(seed=1, variant="big")
    with pytest.raises(GameError, match="2 to 2 players, not 3"):
        Pile(seed=1, players=3)


def test_the_record_keeps_header_deals_and_actions() -> None:
    game = Pile(seed=5, options={"size": 3})
    while not game.is_over():
        game.apply(game.to_act()[0], game.legal_actions(game.to_act()[0])[-1])
    record = game.record()
    assert record["game"] == "pile" and record["seed"] == 5 and record["options"] == {"size": 3}
    assert len(record["deck_orders"]) == 1 and len(record["deck_orders"][0]) == 52
    assert [seat for seat, _ in record["actions"]] == [s.seat for s in game.history]


def test_places_follow_scores_and_ties_share() -> None:
    assert Result.from_scores([3, 7, 3, -1]).places == (2, 1, 2, 4)
    assert Result.from_scores([0, 0]).places == (1, 1)


def test_the_registry_holds_every_game_class_by_its_name_and_refuses_others() -> None:
    assert all(GAMES[cls.name] is cls for cls in GAME_CLASSES)
    assert all(name == cls.name for name, cls in GAMES.items())
    with pytest.raises(GameError, match="no game 'chess'"):
        game_class("chess")


def test_a_game_outside_judge_is_registered_by_naming_its_module_and_class() -> None:
    before = GAMES.get(HighCard.name)
    try:
        register_plugins(" tests.judge.highcard:HighCard , ")
        assert GAMES["highcard"] is HighCard
    finally:
        unregister(HighCard.name)
        if before is not None:
            register(before)
    with pytest.raises(GameError, match=re.escape("cannot load 'tests.judge.highcard:Nope'")):
        register_plugins("tests.judge.highcard:Nope")
    with pytest.raises(GameError, match=re.escape("'judge.cards:Card' is not a judge")):
        register_plugins("judge.cards:Card")


def test_redeal_deals_the_same_cards_back_in_piles_of_the_same_sizes() -> None:
    piles = [make_deck()[:3], make_deck()[3:4], make_deck()[4:20]]
    dealt, moved = redeal(piles, random.Random(3))
    assert [len(pile) for pile in dealt] == [3, 1, 16] and moved
    assert sorted(map(str, (card for pile in dealt for card in pile))) == sorted(
        map(str, make_deck()[:20])
    )
    assert redeal([[make_deck()[0]]], random.Random(1)) == ([[make_deck()[0]]], False)
