"""The evaluator against independent judges: treys (no wilds) and a brute-force oracle.

The oracle is written here from the rules alone: it tries every five-card subset of the
row and every rank each wild in it could take, and scores the resulting five cards with
a plain counting evaluator. Suits of wilds matter only for a flush, so each subset is
tried once as a flush (when its natural cards share a suit and the wilds take ranks the
suit lacks) and once without.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement, pairwise

import pytest
from treys import Card as TreysCard
from treys import Evaluator

from judge.cards import JOKER, Card, format_cards, make_deck
from judge.hands import DEUCES_WILD, JOKERS_WILD, HandRow, key_of, score


def _five_key(values: tuple[int, ...], flush: bool) -> tuple[int, ...]:
    """Key of five (or fewer, padded) rank values 1..13, the plain way."""
    real = [v for v in values if v]
    counts = Counter(real)
    grouped = sorted(real, key=lambda v: (counts[v], v), reverse=True)
    padded = tuple(grouped + [0] * (5 - len(grouped)))
    shape = sorted(counts.values(), reverse=True)
    distinct = sorted(counts, reverse=True)
    top = None
    if len(real) == 5 and len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            top = distinct[0]
        elif distinct == [13, 4, 3, 2, 1]:
            top = 4
    if shape and shape[0] == 5:
        return (9, *padded)
    if top is not None:
        run = (4, 3, 2, 1, 13) if top == 4 else tuple(range(top, top - 5, -1))
        return (8 if flush else 4, *run)
    if shape[:1] == [4]:
        return (7, *padded)
    if shape[:2] == [3, 2]:
        return (6, *padded)
    if flush:
        return (5, *padded)
    if shape[:1] == [3]:
        return (3, *padded)
    if shape[:2] == [2, 2]:
        return (2, *padded)
    if shape[:1] == [2]:
        return (1, *padded)
    return (0, *padded)


@cache
def _best_with_wilds(naturals: tuple[int, ...], wilds: int, suited: bool) -> tuple[int, ...]:
    """Best key of natural rank values plus ``wilds`` wilds, over every rank they may take."""
    best: tuple[int, ...] = (0,)
    for extra in combinations_with_replacement(range(1, 14), wilds):
        values = naturals + extra
        best = max(best, _five_key(values, flush=False))
        if suited and len(values) == 5 and len(set(values)) == 5:
            best = max(best, _five_key(values, flush=True))
    return best


def oracle_key(row: list[Card], wild_ranks: frozenset[int]) -> tuple[int, ...]:
    best: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
    for subset in combinations(row, min(5, len(row))):
        naturals = [c for c in subset if c.rank not in wild_ranks]
        wilds = len(subset) - len(naturals)
        suited = len({c.suit for c in naturals}) <= 1
        values = tuple(sorted(c.rank + 1 for c in naturals))
        best = max(best, _best_with_wilds(values, wilds, suited))
    return best


@pytest.mark.parametrize("suits", [4, 5])
def test_it_agrees_with_the_brute_force_oracle_on_rows_with_wilds(suits: int) -> None:
    rng = random.Random(f"oracle-{suits}")
    naturals = make_deck(suits=suits)
    for _ in range(2600):
        wild_count = rng.randint(0, 3)
        size = rng.randint(wild_count, 12)
        row = rng.sample(naturals, size - wild_count) + [JOKER] * wild_count
        rng.shuffle(row)
        expected = oracle_key(row, JOKERS_WILD)
        assert key_of(score(row)) == expected, format_cards(row)


def test_it_agrees_with_the_oracle_when_deuces_are_wild_too() -> None:
    rng = random.Random("oracle-deuces")
    deck = make_deck(jokers=2)
    for _ in range(400):
        row = rng.sample(deck, rng.randint(0, 11))
        assert key_of(score(row, DEUCES_WILD)) == oracle_key(row, DEUCES_WILD), format_cards(row)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_it_orders_hands_exactly_as_treys(size: int) -> None:
    rng = random.Random(f"treys-{size}")
    deck = make_deck()
    treys_card = {c: TreysCard.new(str(c)) for c in deck}
    evaluator = Evaluator()
    hands = [rng.sample(deck, size) for _ in range(100_000)]
    ours = [score(h) for h in hands]
    theirs = [
        evaluator.evaluate([treys_card[c] for c in h[:2]], [treys_card[c] for c in h[2:]])
        for h in hands
    ]
    order = sorted(range(len(hands)), key=ours.__getitem__)
    for a, b in pairwise(order):
        # treys: lower is better; equal scores must be equal ranks and the reverse
        assert (ours[a] == ours[b]) == (theirs[a] == theirs[b]), (
            format_cards(hands[a]),
            format_cards(hands[b]),
        )
        assert theirs[a] >= theirs[b], (format_cards(hands[a]), format_cards(hands[b]))
    # treys classes 0 (royal flush), 1 (straight flush) .. 9 (high card): our 8, 8 .. 0
    for ours_score, theirs_rank in zip(ours, theirs, strict=True):
        assert ours_score >> 20 == min(8, 9 - evaluator.get_rank_class(theirs_rank))


@pytest.mark.parametrize(
    ("suits", "jokers", "wilds"), [(4, 2, JOKERS_WILD), (4, 2, DEUCES_WILD), (5, 2, JOKERS_WILD)]
)
def test_a_growing_row_always_scores_as_a_fresh_evaluation(
    suits: int, jokers: int, wilds: frozenset[int]
) -> None:
    rng = random.Random(f"row-{suits}-{len(wilds)}")
    deck = make_deck(suits=suits, jokers=jokers)
    for _ in range(150):
        rng.shuffle(deck)
        row = HandRow(wild_ranks=wilds)
        for i, c in enumerate(deck):
            row.add(c)
            assert row.score == score(deck[: i + 1], wilds), format_cards(deck[: i + 1])
