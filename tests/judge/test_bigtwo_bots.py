"""Big Two house bots: the greedy policy plays legally, sensibly, and clearly beats random."""

from __future__ import annotations

import pytest

from judge.bots import house_policy, policies
from judge.games.bigtwo import BigTwo
from tests.judge.playing import play_out
from tests.judge.test_bigtwo import place


def play_deal(seed: int, players: int, names: list[str]) -> BigTwo:
    bots = [house_policy("bigtwo", name, seed * 10 + s) for s, name in enumerate(names)]
    return play_out(BigTwo(seed=seed, players=players), bots)


def test_big_two_has_a_greedy_house_bot_beside_random() -> None:
    assert {"random", "greedy"} <= set(policies("bigtwo"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_clearly_beats_random_players(players: int) -> None:
    deals, score, wins = 240, 0, 0
    for seed in range(deals):
        greedy = seed % players  # the greedy bot takes every seat in turn
        names = ["greedy" if s == greedy else "random" for s in range(players)]
        result = play_deal(seed, players, names).result()
        score += int(result.scores[greedy])
        wins += result.places[greedy] == 1
    assert wins / deals > 1.6 / players  # a random seat wins about 1 / players
    assert score / deals > 2


def test_greedy_plays_legally_against_itself() -> None:
    for seed in range(60):
        game = play_deal(seed, 4, ["greedy"] * 4)
        assert sum(game.result().scores) == 0


def test_greedy_goes_out_when_it_can() -> None:
    bot = house_policy("bigtwo", "greedy")
    game = place(["9c 9s", "4d 5d 6d 7d", "Kd Kh", "Ad Ah"], trick=("8d 8h", 3))
    assert bot.act(game.observation(0), game.legal_actions(0)) == ["9c", "9s"]


def test_greedy_leads_the_biggest_play_holding_its_lowest_card_and_keeps_its_2s() -> None:
    bot = house_policy("bigtwo", "greedy")
    game = place(
        ["3d 3c 3h 9s 9c Kd 2s 2h", "4d 4c 4h 4s 5d 5c", "6d 6c 6h 6s 7d 7c", "8d 8c 8h 8s Td Tc"]
    )
    assert bot.act(game.observation(0), game.legal_actions(0)) == ["3d", "3c", "3h", "9c", "9s"]


def test_greedy_beats_a_single_cheaply_and_saves_2s_while_no_one_is_close() -> None:
    bot = house_policy("bigtwo", "greedy")
    hands = ["5d 8c 8d 9h Th Js Qh 2s", "4d 4c 4h 4s 5c", "6h 6s 7d 7c 7h", "Kd Kc Kh Ks Ad"]
    game = place(hands, trick=("6c", 1))
    assert bot.act(game.observation(0), game.legal_actions(0)) == ["9h"]
    game = place(hands, trick=("As", 1))
    assert game.legal_actions(0) == ["pass", ["2s"]]
    assert bot.act(game.observation(0), game.legal_actions(0)) == "pass"


def test_greedy_blocks_with_its_highest_single_when_an_opponent_is_about_to_go_out() -> None:
    bot = house_policy("bigtwo", "greedy")
    game = place(["5d 8c Js Ks 2s", "4d", "6c 6h 6s 7d 7c 7h", "9d Tc"], trick=("6d", 1))
    assert bot.act(game.observation(0), game.legal_actions(0)) == ["2s"]
