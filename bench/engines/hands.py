"""Poker hand evaluation speed (judge.hands).

Figures, each beside a baseline measured in the same run:
- evaluations per second of random 5- and 7-card hands without wilds, against treys on
  the very same hands (goal: at least 2x treys at 7 cards);
- incremental updates per second (``HandRow.add``: one card added and the row re-scored)
  of 20- and 54-card rows holding 2 jokers, against evaluating the row afresh after each
  card, and against the goal of 1,000,000 per second.

Run: ``python -m bench.engines.hands [--seconds S]`` (S per figure; about a minute in all).
"""

from __future__ import annotations

import argparse
import random

from treys import Card as TreysCard
from treys import Evaluator

from bench._timing import rate
from judge.cards import JOKER, Card, make_deck
from judge.hands import HandRow, prepare, score

GOAL_UPDATES = 1_000_000


def random_hands(size: int, count: int, rnd: random.Random) -> list[list[Card]]:
    deck = make_deck()
    return [rnd.sample(deck, size) for _ in range(count)]


def ours_rate(hands: list[list[Card]], seconds: float) -> float:
    def work() -> int:
        for hand in hands:
            score(hand)
        return len(hands)

    return rate(work, seconds)


def treys_rate(hands: list[list[Card]], seconds: float) -> float:
    evaluator = Evaluator()
    split = [
        ([TreysCard.new(str(c)) for c in h[:2]], [TreysCard.new(str(c)) for c in h[2:]])
        for h in hands
    ]

    def work() -> int:
        evaluate = evaluator.evaluate
        for hole, board in split:
            evaluate(hole, board)
        return len(split)

    return rate(work, seconds)


def rows_with_jokers(size: int, count: int, rnd: random.Random) -> list[list[Card]]:
    """Random rows of ``size`` cards from a 54-card deck, each holding both jokers."""
    naturals = make_deck()
    rows = []
    for _ in range(count):
        row = [*rnd.sample(naturals, size - 2), JOKER, JOKER]
        rnd.shuffle(row)
        rows.append(row)
    return rows


def incremental_rate(rows: list[list[Card]], seconds: float) -> float:
    def work() -> int:
        for cards in rows:
            add = HandRow().add
            for c in cards:
                add(c)
        return sum(map(len, rows))

    return rate(work, seconds)


def afresh_rate(rows: list[list[Card]], seconds: float) -> float:
    def work() -> int:
        for cards in rows:
            for end in range(1, len(cards) + 1):
                score(cards[:end])
        return sum(map(len, rows))

    return rate(work, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per figure")
    seconds = parser.parse_args().seconds
    prepare()
    rnd = random.Random(2026)
    print("evaluations per second, no wilds (ours vs treys, same hands)")
    for size in (5, 7):
        hands = random_hands(size, 20_000, rnd)
        ours, theirs = ours_rate(hands, seconds), treys_rate(hands, seconds)
        print(
            f"  {size} cards: {ours:12,.0f}/s   treys {theirs:12,.0f}/s"
            f"   ratio {ours / theirs:5.2f}x"
        )
    print("incremental updates per second, rows with 2 jokers (HandRow.add vs afresh)")
    for size in (20, 54):
        rows = rows_with_jokers(size, 2_000, rnd)
        ours, fresh = incremental_rate(rows, seconds), afresh_rate(rows[:200], seconds)
        print(
            f"  {size} cards: {ours:12,.0f}/s   afresh {fresh:12,.0f}/s"
            f"   ratio {ours / fresh:5.1f}x"
            f"   goal {ours / GOAL_UPDATES:4.2f}x of 1,000,000/s"
        )


if __name__ == "__main__":
    main()
