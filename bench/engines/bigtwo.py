"""Big Two engine speed: legal-action generation and whole random deals.

Figures, each beside a baseline measured in the same run:
- legal plays per second for random 13-card hands, leading and following a five-card
  trick, against the brute-force filter (every subset of 1, 2, 3 or 5 cards);
- random deals per second with 4 players, against 2 players, and the share of that time
  spent listing legal actions.

Run: ``python -m bench.engines.bigtwo [--seconds S]`` (S per figure; about a minute in all).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from bench._timing import rate
from judge.games.bigtwo import BigTwo
from judge.games.bigtwo.combos import Combo, brute_force_plays, combos_of_size, plays

Position = tuple[list[int], Combo | None]
Lister = Callable[[Sequence[int], Combo | None], list[Combo]]


def positions(count: int, following: bool, seed: int = 1) -> list[Position]:
    """Random 13-card hands, each with no trick or a random five-card trick of other cards."""
    rnd = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        deck = rnd.sample(range(52), 52)
        hand, rest = sorted(deck[:13]), deck[13:]
        fives = combos_of_size(rest[:13], 5) if following else []
        if following and not fives:
            continue
        found.append((hand, rnd.choice(fives) if following else None))
    return found


def listing_rate(cases: list[Position], lister: Lister, seconds: float) -> float:
    def work() -> int:
        for hand, trick in cases:
            [combo.texts() for combo in lister(hand, trick)]
        return len(cases)

    return rate(work, seconds)


def deal_rate(players: int, seconds: float) -> tuple[float, float]:
    """Random deals per second, and the share of time spent in ``legal_actions``."""
    rnd = random.Random(players)
    listing = 0.0
    seed = 0

    def work() -> int:
        nonlocal listing, seed
        seed += 1
        game = BigTwo(seed=seed, players=players)
        while not game.is_over():
            seat = game.to_act()[0]
            start = time.perf_counter()
            legal = game.legal_actions(seat)
            listing += time.perf_counter() - start
            game.apply(seat, rnd.choice(legal))
        return 1

    start = time.perf_counter()
    per_second = rate(work, seconds)
    return per_second, listing / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="time for each figure")
    seconds = parser.parse_args(argv).seconds
    for label, following in (("leading", False), ("following a five-card trick", True)):
        cases = positions(200, following)
        fast = listing_rate(cases, plays, seconds)
        slow = listing_rate(cases, brute_force_plays, seconds)
        print(
            f"legal plays, 13-card hand, {label}: {fast:,.0f}/s; "
            f"brute-force filter {slow:,.0f}/s; ratio {fast / slow:.1f}x"
        )
    four, four_share = deal_rate(4, seconds)
    two, _ = deal_rate(2, seconds)
    print(
        f"random deals, 4 players: {four:,.0f}/s (legal actions {four_share:.0%} of the time); "
        f"2 players {two:,.0f}/s; ratio 4p/2p {four / two:.2f}"
    )


if __name__ == "__main__":
    main()
