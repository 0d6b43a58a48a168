"""Fifteen Thirty-Five speed: random hands per second, and the cost of the showdown evaluation.

Every figure is printed beside a baseline measured in the same run, as a ratio:
- hands of random legal play per second at 5 and at 8 players, each beside the rate of
  plain 52-card shuffles (the least work a hand can cost), and 8 players beside 5;
- the best-total evaluation (the Ace/picture shortcut) beside the brute force over every
  valuation, on the same random hands of 3 to 8 cards.

Figures that are compared are measured in alternating slices of a quarter second, so that
load from elsewhere on the machine falls on both sides of a ratio alike.

Run: ``python -m bench.engines.fifteen35 [--seconds S]`` (S per comparison, 12 by default:
about a minute in all).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from judge.cards import Card, make_deck
from judge.games.fifteen35 import FifteenThirtyFive
from judge.games.fifteen35.scoring import (
    TARGET_15,
    TARGET_35,
    best_total,
    brute_force_totals,
    reachable_totals,
)
from judge.rng import rng

#: Work done per call: a number of units (hands, evaluations); the argument is a call counter.
Work = Callable[[int], int]
SLICE = 0.25


def rates(works: dict[str, Work], seconds: float) -> dict[str, float]:
    """Units per second of each work, run in alternating slices for ``seconds`` in all."""
    done = dict.fromkeys(works, 0)
    spent = dict.fromkeys(works, 0.0)
    calls = 0
    while sum(spent.values()) < seconds:
        for name, work in works.items():
            start = time.perf_counter()
            while time.perf_counter() - start < SLICE:
                done[name] += work(calls)
                calls += 1
            spent[name] += time.perf_counter() - start
    return {name: done[name] / spent[name] for name in works}


def random_hands(players: int) -> Work:
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


def evaluations(hands: list[list[Card]], totals: Callable[[list[Card]], set[int]]) -> Work:
    """Best totals for 15 and 35 of every hand in ``hands``, using ``totals``."""

    def work(_: int) -> int:
        for cards in hands:
            found = totals(cards)
            best_total(found, TARGET_15)
            best_total(found, TARGET_35)
        return len(hands)

    return work


def compare_evaluations(label: str, hands: list[list[Card]], seconds: float) -> None:
    found = rates(
        {
            "brute": evaluations(hands, brute_force_totals),
            "shortcut": evaluations(hands, reachable_totals),
        },
        seconds,
    )
    print(
        f"{label:<22} brute force {found['brute']:10,.0f} hands/s   "
        f"shortcut {found['shortcut']:10,.0f} hands/s   "
        f"({found['shortcut'] / found['brute']:.2f} x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="time per comparison")
    seconds = parser.parse_args().seconds

    found = rates({"shuffle": shuffles, "5": random_hands(5), "8": random_hands(8)}, 2 * seconds)
    print(f"baseline: 52-card shuffles      {found['shuffle']:10,.0f} /s")
    for players in ("5", "8"):
        print(
            f"random hands, {players} players       {found[players]:10,.0f} /s"
            f"   ({found[players] / found['shuffle']:.3f} x shuffles)"
        )
    print(f"8 players beside 5: {found['8'] / found['5']:.2f} x the hands per second")

    print("best totals for 15 and 35, the Ace/picture shortcut beside the brute force:")
    deal = random.Random(35)
    deck = make_deck()
    hands = [deal.sample(deck, size) for size in range(3, 9) for _ in range(200)]
    compare_evaluations("random 3-8 cards", hands, seconds)
    compare_evaluations("random 8 cards", [h for h in hands if len(h) == 8], seconds)
    duals = [c for c in deck if c.rank >= 9]  # Aces and pictures: 2**8 valuations each
    compare_evaluations("8 Aces and pictures", [deal.sample(duals, 8) for _ in range(200)], seconds)


if __name__ == "__main__":
    main()
