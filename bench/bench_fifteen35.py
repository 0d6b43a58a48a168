"""Fifteen Thirty-Five speed: random hands per second, and the cost of the showdown evaluation.

Every figure is printed beside a baseline measured in the same run, as a ratio:
- hands of random legal play per second at 5 and at 8 players, each beside the rate of
  plain 52-card shuffles (the least work a hand can cost), and 8 players beside 5;
- the best-total evaluation (the Ace/picture shortcut) beside the brute force over every
  valuation, on the same random hands of 3 to 8 cards.

Run: ``python -m bench.bench_fifteen35 [--seconds S]`` (S per figure, 5 by default: about a
minute in all).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from judge.cards import Card, make_deck
from judge.games.fifteen35 import FifteenThirtyFive
from judge.games.fifteen35_scoring import (
    TARGET_15,
    TARGET_35,
    best_total,
    brute_force_totals,
    reachable_totals,
)
from judge.rng import rng


def rate(work: Callable[[int], int], seconds: float) -> float:
    """Units of ``work`` per second: call it with a growing counter until time is up."""
    done, calls, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += work(calls)
        calls += 1
    return done / (time.perf_counter() - start)


def random_hands(players: int) -> Callable[[int], int]:
    """One game of 10 hands of random legal play per call."""

    def work(seed: int) -> int:
        game = FifteenThirtyFive(seed, players=players, options={"hands": 10})
        choose = random.Random(seed).choice
        while not game.is_over():
            seat = game.to_act()[0]
            game.apply(seat, choose(game.legal_actions(seat)))
        return 10

    return work


def shuffles(seed: int) -> int:
    rng(seed, "hand", 0).shuffle(make_deck())
    return 1


def evaluations(
    hands: list[list[Card]], totals: Callable[[list[Card]], set[int]], seconds: float
) -> float:
    """Best totals for 15 and 35 per second over ``hands``, using ``totals``."""

    def work(_: int) -> int:
        for cards in hands:
            found = totals(cards)
            best_total(found, TARGET_15)
            best_total(found, TARGET_35)
        return len(hands)

    return rate(work, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per figure")
    seconds = parser.parse_args().seconds

    shuffle_rate = rate(shuffles, seconds)
    print(f"baseline: 52-card shuffles          {shuffle_rate:12,.0f} /s")
    hand_rates = {}
    for players in (5, 8):
        hand_rates[players] = rate(random_hands(players), seconds)
        print(
            f"random hands, {players} players           {hand_rates[players]:12,.0f} /s"
            f"   ({hand_rates[players] / shuffle_rate:.3f} x shuffles)"
        )
    print(f"8 players beside 5: {hand_rates[8] / hand_rates[5]:.2f} x the hands per second")

    deal = random.Random(35)
    deck = make_deck()
    hands = [deal.sample(deck, size) for size in range(3, 9) for _ in range(200)]
    fast = evaluations(hands, reachable_totals, seconds)
    brute = evaluations(hands, brute_force_totals, seconds)
    print(f"baseline: brute-force best totals   {brute:12,.0f} hands/s (3-8 cards)")
    print(f"shortcut best totals                {fast:12,.0f} hands/s   ({fast / brute:.2f} x)")
    for size in (3, 8):
        sized = [h for h in hands if len(h) == size]
        ratio = evaluations(sized, reachable_totals, seconds) / evaluations(
            sized, brute_force_totals, seconds
        )
        print(f"  {size} cards: shortcut {ratio:.2f} x the brute force")
    duals = [c for c in deck if c.rank >= 9]  # Aces and pictures: 2**8 valuations each
    rich = [deal.sample(duals, 8) for _ in range(200)]
    ratio = evaluations(rich, reachable_totals, seconds) / evaluations(
        rich, brute_force_totals, seconds
    )
    print(f"  8 Aces/pictures: shortcut {ratio:.2f} x the brute force")


if __name__ == "__main__":
    main()
