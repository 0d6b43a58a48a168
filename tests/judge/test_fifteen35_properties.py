"""Fifteen Thirty-Five over many random hands: conservation, determinism, replay, secrecy.

Random players draw uniformly from the legal actions, with fixed seeds so that every run
checks the same hands.
"""

import json
import random

import pytest

from judge.engine import Action
from judge.games.fifteen35 import FifteenThirtyFive

TABLE_SIZES = range(2, 9)


def random_step(game: FifteenThirtyFive, rng: random.Random) -> tuple[int, Action]:
    seat = rng.choice(game.to_act())
    action = rng.choice(game.legal_actions(seat))
    game.apply(seat, action)
    return seat, action


def random_game(seed: int, players: int, hands: int = 0) -> FifteenThirtyFive:
    game = FifteenThirtyFive(seed, players=players, options={"hands": hands})
    rng = random.Random(seed)
    while not game.is_over():
        random_step(game, rng)
    return game


@pytest.mark.parametrize("players", TABLE_SIZES)
def test_thousands_of_random_hands_finish_and_conserve_chips_in_every_hand(players: int) -> None:
    hands = 0
    for seed in range(40):
        game = FifteenThirtyFive(seed, players=players, options={"hands": 50})
        rng = random.Random(seed)
        seen = -1
        while not game.is_over():
            assert game.to_act() and all(game.legal_actions(s) for s in game.to_act())
            random_step(game, rng)
            last = game.last_hand
            if last is not None and last["hand"] != seen:
                seen = last["hand"]
                assert sum(last["net"]) == 0 and sum(last["won"]) == last["pot"]
                hands += 1
        assert sum(game.result().scores) == 0
        assert list(game.result().scores) == [
            sum(deal["net"][s] for deal in game.revealed()["deals"]) for s in range(players)
        ]
    assert hands == 2000


def test_random_play_reaches_every_kind_of_ending() -> None:
    endings = {"fold": 0, "natural": 0, "declared": 0}
    seed = 0
    while min(endings.values()) == 0 and seed < 1000:  # a natural: about 1 hand in 1500
        for deal in random_game(seed, players=8).revealed()["deals"]:
            if sum(not folded for folded in deal["folded"]) == 1:
                endings["fold"] += 1
            elif deal["declarations"]:
                endings["declared"] += 1
            else:
                endings["natural"] += 1
        seed += 1
    assert min(endings.values()) > 0, endings


def test_no_declaration_shows_in_any_observation_before_all_are_in() -> None:
    rng = random.Random(15)
    showdowns = 0
    for seed in range(200):
        game = FifteenThirtyFive(seed, players=rng.randint(2, 8), options={"hands": 1})
        while game.phase != "declare" and not game.is_over():
            random_step(game, rng)
        if game.is_over():
            continue
        showdowns += 1
        before = [game.observation(s) for s in range(game.players)]
        for seat in game.to_act()[:-1]:
            game.apply(seat, rng.choice(["15", "35", "both"]))
            assert [game.observation(s) for s in range(game.players)] == before
        last_seat = game.to_act()[0]
        game.apply(last_seat, "both")
        assert game.observation(0)["last_hand"]["declarations"][str(last_seat)] == "both"
    assert showdowns > 20


def scribble(value: object) -> None:
    """Change every list and dict inside ``value``, as a careless bot might."""
    if isinstance(value, dict):
        for inner in value.values():
            scribble(inner)
        value["scribbled"] = True
    elif isinstance(value, list):
        for inner in value:
            scribble(inner)
        value.append("scribbled")


def test_an_observation_is_the_seats_own_and_changing_it_changes_nothing_in_the_game() -> None:
    rng = random.Random(35)
    checked = 0
    for seed in range(30):
        game = FifteenThirtyFive(seed, players=rng.randint(2, 8), options={"hands": 2})
        while not game.is_over():
            seats = range(game.players)
            before = json.dumps([game.observation(s) for s in seats])
            for seen in [game.observation(s) for s in seats]:
                scribble(seen)
            assert json.dumps([game.observation(s) for s in seats]) == before
            checked += game.last_hand is not None
            random_step(game, rng)
    assert checked > 100
