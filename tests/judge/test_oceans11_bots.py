"""Oceans 11 house bots: legal play, honest sampling, a faithful playout, and strength."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from judge.bots import Policy, house_policy
from judge.bots.oceans11 import GreedyPolicy, MonteCarloPolicy, Playout, unseen_cards
from judge.cards import parse_cards
from judge.games.oceans11 import VARIANTS, Oceans11


def partly_played(seed: int, variant: str, rng: random.Random) -> Oceans11:
    game = Oceans11(seed, variant=variant)
    for _ in range(rng.randint(0, 12)):
        if game.is_over():
            break
        (seat,) = game.to_act()
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_playout_follows_the_engines_rules(variant: str) -> None:
    rng = random.Random(variant)
    greedy = GreedyPolicy()
    for seed in range(60):
        game = partly_played(seed, variant, rng)
        if game.is_over():
            continue
        (seat,) = game.to_act()
        action = rng.choice(game.legal_actions(seat))
        seen = game.observation(seat)
        rest = [game.decks[s][game.turned[s] :] for s in range(2)]
        rows = [parse_cards(row) for row in seen["rows"]]
        playout = Playout(game.spec, rows, rest, seen["wins"])
        points = playout.finish(seat, action)
        game.apply(seat, action)
        while not game.is_over():
            (who,) = game.to_act()
            game.apply(who, greedy.act(game.observation(who), game.legal_actions(who)))
        assert playout.wins == game.wins
        assert points[0] - points[1] == (game.wins[0] > game.wins[1]) - (
            game.wins[1] > game.wins[0]
        )


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_montecarlo_deals_only_cards_its_seat_has_not_seen(variant: str) -> None:
    rng = random.Random(f"unseen-{variant}")
    bot = MonteCarloPolicy(seed=1)
    for seed in range(30):
        game = partly_played(seed, variant, rng)
        seat = 0
        seen = game.observation(seat)
        decks = bot._deal(unseen_cards(seen, game.spec), seen["deck_sizes"])
        rest = [game.decks[s][game.turned[s] :] for s in range(2)]
        assert [len(d) for d in decks] == [len(r) for r in rest]
        if VARIANTS[variant].split:  # which half holds a card is unseen: only the union
            assert Counter(decks[0] + decks[1]) == Counter(rest[0] + rest[1])
            assert [d.count(parse_cards("JK")[0]) for d in decks] == [
                r.count(parse_cards("JK")[0]) for r in rest
            ]
        else:
            assert [Counter(d) for d in decks] == [Counter(r) for r in rest]


@pytest.mark.parametrize("name", ["greedy", "montecarlo"])
def test_house_bots_play_legal_actions_to_the_end(name: str) -> None:
    for variant in VARIANTS:
        game = Oceans11(5, variant=variant)
        bots = [house_policy("oceans11", name, seed) for seed in range(2)]
        while not game.is_over():
            (seat,) = game.to_act()
            legal = game.legal_actions(seat)
            action = bots[seat].act(game.observation(seat), legal)
            assert action in legal
            game.apply(seat, action)


def test_montecarlo_beats_greedy() -> None:
    points = 0.0
    games = 0
    for seed in range(24):
        for mc_seat in (0, 1):  # the same deal from both seats
            game = Oceans11(1000 + seed)
            bots: list[Policy] = [GreedyPolicy(), GreedyPolicy()]
            bots[mc_seat] = MonteCarloPolicy(seed, playouts=24, time_cap=10.0)
            while not game.is_over():
                (seat,) = game.to_act()
                game.apply(seat, bots[seat].act(game.observation(seat), game.legal_actions(seat)))
            scores = game.result().scores
            points += (
                1.0 if scores[mc_seat] > scores[1 - mc_seat] else 0.5 * (scores[0] == scores[1])
            )
            games += 1
    assert points / games > 0.58
