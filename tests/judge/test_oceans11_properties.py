"""Oceans 11 properties over many random games of every variant."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from judge.cards import JOKER
from judge.games import replay
from judge.games.oceans11 import VARIANTS, Oceans11

ALL_VARIANTS = list(VARIANTS)


def play_randomly(game: Oceans11, rng: random.Random, check: bool = False) -> Oceans11:
    while not game.is_over():
        if check:
            assert_cards_conserved(game)
        (seat,) = game.to_act()
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


def assert_cards_conserved(game: Oceans11) -> None:
    for seat in range(2):
        turned = game.decks[seat][: game.turned[seat]]
        assert Counter(turned) == Counter(game.used[seat] + game.rows[seat].cards)
        assert len(turned) + game.cards_left(seat) == len(game.decks[seat])
    spec = VARIANTS[game.variant]
    expected = spec.deck() + [JOKER] * (2 * spec.jokers) if spec.split else spec.deck() * 2
    assert Counter(game.decks[0] + game.decks[1]) == Counter(expected)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_random_games_of_every_variant_run_to_completion(variant: str) -> None:
    rng = random.Random(variant)
    target = VARIANTS[variant].target
    outcomes: Counter[tuple[int, ...]] = Counter()
    for seed in range(3000):
        game = play_randomly(Oceans11(seed, variant=variant), rng)
        assert game.to_act() == () and max(game.wins) <= target
        assert max(game.wins) == target or not any(game.cards_left(s) for s in range(2))
        outcomes[game.result().places] += 1
    assert outcomes[(1, 2)] > 1000 and outcomes[(2, 1)] > 1000


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_cards_are_conserved_at_every_step(variant: str) -> None:
    rng = random.Random(f"conserve-{variant}")
    for seed in range(40):
        game = play_randomly(Oceans11(seed, variant=variant), rng, check=True)
        assert_cards_conserved(game)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_the_same_seed_gives_the_same_game(variant: str) -> None:
    for seed in range(20):
        one = play_randomly(Oceans11(seed, variant=variant), random.Random(seed))
        two = play_randomly(Oceans11(seed, variant=variant), random.Random(seed))
        assert one.record() == two.record() and one.revealed() == two.revealed()
        assert one.observation(0) == two.observation(0) and one.result() == two.result()


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_a_finished_game_replays_to_the_same_result(variant: str) -> None:
    for seed in range(60):
        game = play_randomly(Oceans11(seed, variant=variant), random.Random(-seed))
        again = replay(game.record())
        assert again.is_over() and again.result() == game.result()
        assert again.observation(1) == game.observation(1)


def redealt(game: Oceans11, rng: random.Random) -> Oceans11:
    """The same game with every card its seats cannot see dealt again differently.

    Unturned cards are reordered; in the split variants, where which half holds a card
    is secret too, they are also exchanged between the two decks.
    """
    other = copy.deepcopy(game)
    rests = [other.decks[s][other.turned[s] :] for s in range(2)]
    if VARIANTS[game.variant].split:
        pool = rests[0] + rests[1]
        rng.shuffle(pool)
        rests = [pool[: len(rests[0])], pool[len(rests[0]) :]]
    for seat in range(2):
        rng.shuffle(rests[seat])
        other.decks[seat][other.turned[seat] :] = rests[seat]
    return other


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_an_observation_never_changes_when_unseen_cards_are_redealt(variant: str) -> None:
    rng = random.Random(f"secret-{variant}")
    for seed in range(40):
        game = Oceans11(seed, variant=variant)
        steps = rng.randint(0, 30)
        while not game.is_over() and steps:
            (seat,) = game.to_act()
            game.apply(seat, rng.choice(game.legal_actions(seat)))
            steps -= 1
        other = redealt(game, rng)
        for seat in range(2):
            assert other.observation(seat) == game.observation(seat)
            assert other.legal_actions(seat) == game.legal_actions(seat)
        assert other.to_act() == game.to_act()
