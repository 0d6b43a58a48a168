"""Oceans 11 house bots: legal play, honest sampling, a faithful playout, and strength."""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from judge.bots import Policy, RandomPolicy, house_policy
from judge.cards import parse_cards
from judge.engine import Action
from judge.games.oceans11 import CONCEDE, DEAL, VARIANTS, Oceans11
from judge.games.oceans11.bots import (
    GreedyPolicy,
    MonteCarloPolicy,
    Playout,
    sampled_catch_up,
    unseen_cards,
)
from tests.judge.playing import play_out


def partly_played(seed: int, variant: str, rng: random.Random) -> Oceans11:
    game = Oceans11(seed, variant=variant)
    for _ in range(rng.randint(0, 12)):
        if game.is_over():
            break
        (seat,) = game.to_act()
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


class SampledGreedy:
    """The playout's greedy, played in the engine: it draws from the real deck below the
    top card with a generator seeded like the playout's, so both make the same choices."""

    def __init__(self, game: Oceans11, seed: float) -> None:
        self.game = game
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        if CONCEDE not in legal:
            return DEAL
        game, me = self.game, observation["seat"]
        below_top = list(reversed(game.decks[me][game.turned[me] :]))
        theirs = game.rows[1 - me].score
        deals = sampled_catch_up(game.rows[me], theirs, below_top, len(below_top) - 1, self.rng)
        return DEAL if deals else CONCEDE


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_playout_follows_the_engines_rules(variant: str) -> None:
    rng = random.Random(variant)
    for seed in range(60):
        game = partly_played(seed, variant, rng)
        if game.is_over():
            continue
        (seat,) = game.to_act()
        action = rng.choice(game.legal_actions(seat))
        seen = game.observation(seat)
        rest = [game.decks[s][game.turned[s] :] for s in range(2)]
        rows = [parse_cards(row) for row in seen["rows"]]
        playout = Playout(game.spec, rows, rest, seen["wins"], seed)
        points = playout.finish(seat, action)
        hand = Playout(game.spec, rows, rest, seen["wins"], seed).finish_hand(seat, action)
        hands = len(game.outcomes)
        greedy = SampledGreedy(game, seed)
        game.apply(seat, action)
        while not game.is_over():
            (who,) = game.to_act()
            game.apply(who, greedy.act(game.observation(who), game.legal_actions(who)))
        ended = game.outcomes[hands]  # this hand; the cards of later ones were still left
        later = game.outcomes[hands + 1 :]
        wins = [seen["wins"][s] + (ended.winner == s) for s in range(2)]
        left = [game.cards_left(s) + sum(len(o.rows[s]) for o in later) for s in range(2)]
        assert hand == (wins, left)
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
        bots = [house_policy("oceans11", name, seed) for seed in range(2)]
        play_out(Oceans11(5, variant=variant), bots)


def duplicate_scores(
    strong: Callable[[int], Policy], weak: Callable[[int], Policy], deals: int, first_seed: int
) -> list[float]:
    """``strong``'s mean points per deal, each deal played from both seats."""
    scores = []
    for seed in range(first_seed, first_seed + deals):
        points = 0.0
        for strong_seat in (0, 1):
            game = Oceans11(seed)
            bots = [weak(seed), weak(seed)]
            bots[strong_seat] = strong(seed)
            while not game.is_over():
                (seat,) = game.to_act()
                game.apply(seat, bots[seat].act(game.observation(seat), game.legal_actions(seat)))
            mine, theirs = game.wins[strong_seat], game.wins[1 - strong_seat]
            points += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        scores.append(points / 2)
    return scores


def lower_bound(scores: list[float]) -> float:
    """The low end of the 95% interval of the mean score (normal approximation)."""
    return statistics.fmean(scores) - 1.96 * statistics.stdev(scores) / math.sqrt(len(scores))


def test_greedy_beats_random_by_over_a_hundred_elo() -> None:
    scores = duplicate_scores(GreedyPolicy, RandomPolicy, deals=150, first_seed=2000)
    assert lower_bound(scores) > 0.64  # +100 Elo expects 0.640


def test_greedy_concedes_a_hopeless_hand_and_deals_a_close_one() -> None:
    greedy = GreedyPolicy()
    game = Oceans11(0)
    seen = game.observation(0)
    legal = [DEAL, CONCEDE]
    hopeless = seen | {"seat": 0, "rows": [["2c"], ["Ah", "Ad", "As", "Kh"]], "used": [[], []]}
    close = seen | {"seat": 0, "rows": [["Kc", "7d"], ["Ah", "3d"]], "used": [[], []]}
    assert greedy.act(hopeless, legal) == CONCEDE
    assert greedy.act(close, legal) == DEAL
    assert greedy.act(hopeless, [DEAL]) == DEAL


def test_montecarlo_beats_greedy() -> None:
    scores = duplicate_scores(
        lambda seed: MonteCarloPolicy(seed, playouts=40, time_cap=10.0),
        GreedyPolicy,
        deals=48,
        first_seed=1000,
    )
    assert lower_bound(scores) > 0.5
