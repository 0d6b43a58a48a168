"""The Fifteen Thirty-Five house bot ``greedy``: sensible choices, and it beats random."""

import random
from typing import Any

import pytest

from judge.bots import RandomPolicy, house_policy, policies
from judge.cards import make_deck
from judge.games.fifteen35 import FifteenThirtyFive
from judge.games.fifteen35.bots import GreedyPolicy, distances, expected_gap_after_draw, gap
from judge.games.fifteen35.scoring import is_natural
from tests.judge.playing import play_out


def seen(hidden: str, phase: str, exposed: str = "", **extra: Any) -> dict[str, Any]:
    """A seat-0 observation at a two-player table, with only what the bot reads."""
    return {
        "seat": 0,
        "phase": phase,
        "hidden": hidden.split(),
        "exposed": [exposed.split(), ["9c"]],
        "frozen": [False, False],
        "final_round": False,
        "stock": 40,
        **extra,
    }


def test_greedy_is_a_house_bot_of_fifteen35() -> None:
    assert set(policies("fifteen35")) == {"random", "greedy"}
    assert isinstance(house_policy("fifteen35", "greedy", 3), GreedyPolicy)


def test_it_exposes_a_plain_card_and_keeps_aces_and_pictures_hidden() -> None:
    legal = ["expose Ac", "expose Kd", "expose 5h"]
    assert GreedyPolicy().act(seen("Ac Kd 5h", "expose"), legal) == "expose 5h"


def test_it_takes_a_card_far_under_a_target_and_refuses_at_exactly_15() -> None:
    bot = GreedyPolicy()
    assert bot.act(seen("2c 3c", "offer", "4c"), ["take", "refuse"]) == "take"
    assert bot.act(seen("7c 5d", "offer", "3h"), ["take", "refuse"]) == "refuse"


def test_it_declares_the_side_it_is_nearest_to() -> None:
    bot = GreedyPolicy()
    legal = ["15", "35", "both"]
    assert bot.act(seen("7c 5d", "declare", "3h"), legal) == "15"
    assert bot.act(seen("Tc Td", "declare", "Th 5s"), legal) == "35"
    assert bot.act(seen("Ac Ad 5h", "declare", "9s"), legal) in ("15", "35")


def test_it_raises_with_a_natural_and_folds_a_far_hand_in_the_final_round() -> None:
    bot = GreedyPolicy()
    legal = ["fold", "call", "raise"]
    assert bot.act(seen("Ac Ad 5h", "bet", "8s"), legal) == "raise"
    assert bot.act(seen("Ac Ad 5h", "bet", "8s"), ["check", "bet"]) == "bet"
    far = seen("2c 2d", "bet", "3c", final_round=True)
    assert bot.act(far, legal) == "fold"
    assert bot.act(far, ["check", "bet"]) == "check"


@pytest.mark.parametrize("players", [2, 5, 8])
def test_greedy_only_ever_plays_legal_actions(players: int) -> None:
    for seed in range(3):
        game = FifteenThirtyFive(seed, players=players, options={"hands": 2})
        play_out(game, [GreedyPolicy(seat) for seat in range(players)])


def greedy_against_random(players: int, games: int) -> tuple[int, int]:
    """Chips won by greedy seats and by random seats over ``games``, with seats rotated."""
    greedy_total = random_total = 0
    for seed in range(games):
        greedy = {(seed + i) % players for i in range(0, players, 2)}
        game = FifteenThirtyFive(seed, players=players)
        bots = [
            GreedyPolicy(seed) if seat in greedy else RandomPolicy(seed) for seat in range(players)
        ]
        while not game.is_over():
            seat = game.to_act()[0]
            game.apply(seat, bots[seat].act(game.observation(seat), game.legal_actions(seat)))
        for seat, chips in enumerate(game.result().scores):
            if seat in greedy:
                greedy_total += int(chips)
            else:
                random_total += int(chips)
    return greedy_total, random_total


@pytest.mark.parametrize(("players", "games"), [(2, 60), (6, 12)])
def test_greedy_clearly_beats_random(players: int, games: int) -> None:
    greedy_total, random_total = greedy_against_random(players, games)
    hands = players * games
    assert greedy_total == -random_total
    assert greedy_total / hands > 2, (greedy_total, hands)


def test_the_expected_gap_after_a_draw_is_the_mean_over_every_unseen_card() -> None:
    rng = random.Random(15)
    deck = make_deck()
    for _ in range(2000):
        cards = rng.sample(deck, rng.randint(2, 8))
        unseen = [c for c in deck if c not in cards][: rng.randint(0, 44)]
        by_card = [0 if is_natural([*cards, c]) else min(distances([*cards, c])) for c in unseen]
        mean = sum(by_card) / len(by_card) if unseen else float(gap(cards))
        assert expected_gap_after_draw(cards, unseen) == mean
        assert gap(cards) == (0 if is_natural(cards) else min(distances(cards)))
