"""Oceans 11 properties over many random games of every variant."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from judge.cards import JOKER
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
