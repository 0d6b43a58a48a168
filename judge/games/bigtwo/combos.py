"""Big Two combinations: what a set of cards is, which beats which, and every play a hand has.

Cards are small ints in Big Two order, so that comparing two ints compares two cards:
``id = 4 * rank + suit`` with rank 0 (3) ... 11 (A), 12 (2) and suit 0 (♦) < 1 (♣) <
2 (♥) < 3 (♠). ``0`` is 3♦, the lowest card; ``51`` is 2♠, the highest.

Each combination carries a ``key``: a tuple that starts with its size and kind, then the
values the rules compare (rules.md: pairs and triples by their highest card, straights by
the highest card of the sequence, flushes by their ranks from the top then the suit, full
houses by the triple, four of a kind by the four), and ends with every card from the
highest down. That last part never decides between two combinations that can meet in one
deal (they share no card); it only makes ``beats`` a strict total order within each size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations, product
from typing import Final

from judge.cards import RANKS, SUITS, Card

#: The two ways straights may run (option ``straights``).
STRAIGHTS_OPTIONS: Final = ("big-two", "poker")
#: Big Two rank order, lowest first, and suit order, lowest first.
RANK_ORDER: Final = "3456789TJQKA2"
SUIT_ORDER: Final = "dchs"
#: The sizes a play may have.
PLAY_SIZES: Final = (1, 2, 3, 5)


class Kind(IntEnum):
    """What a combination is; among five-card hands a higher kind beats a lower one."""

    SINGLE = 1
    PAIR = 2
    TRIPLE = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        """The kind as written in observations: ``single``, ``full-house`` ..."""
        return self.name.lower().replace("_", "-")


def _text(card_id: int) -> str:
    return RANK_ORDER[card_id >> 2] + SUIT_ORDER[card_id & 3]


#: Card text of each id, and id of each card text of the 52-card pack.
CARD_TEXT: Final[tuple[str, ...]] = tuple(_text(i) for i in range(52))
CARD_ID: Final[dict[str, int]] = {text: i for i, text in enumerate(CARD_TEXT)}
LOWEST_CARD: Final = 0


def card_id(card: Card) -> int:
    """The Big Two id of a card of the 52-card pack (not a joker or an ``x`` card)."""
    return CARD_ID[RANKS[card.rank] + SUITS[card.suit]]


def texts(cards: Iterable[int]) -> list[str]:
    """Card texts of ids, in the order given."""
    return [CARD_TEXT[c] for c in cards]


def _sequences(straights: str) -> tuple[tuple[int, ...], ...]:
    """The rank runs that are straights, lowest first; the last rank of each is its top."""
    if straights == "big-two":  # 3-4-5-6-7 ... J-Q-K-A-2, no wrapping
        return tuple(tuple(range(start, start + 5)) for start in range(9))
    ace, two = 11, 12  # poker: A-2-3-4-5, 2-3-4-5-6, then 3-4-5-6-7 ... 10-J-Q-K-A
    return ((ace, two, 0, 1, 2), (two, 0, 1, 2, 3), *(tuple(range(s, s + 5)) for s in range(8)))


SEQUENCES: Final[dict[str, tuple[tuple[int, ...], ...]]] = {
    option: _sequences(option) for option in STRAIGHTS_OPTIONS
}
#: The set of ranks of each straight -> its place among straights (0 is the lowest).
SEQUENCE_INDEX: Final[dict[str, dict[frozenset[int], int]]] = {
    option: {frozenset(seq): i for i, seq in enumerate(runs)} for option, runs in SEQUENCES.items()
}


@dataclass(frozen=True, slots=True)
class Combo:
    """A valid combination: its card ids (lowest first), its kind and its comparison key."""

    cards: tuple[int, ...]
    kind: Kind
    key: tuple[int, ...]

    def beats(self, other: Combo) -> bool:
        """Whether this may be played on ``other``: same number of cards and stronger."""
        return self.key[0] == other.key[0] and self.key > other.key

    def texts(self) -> list[str]:
        """The play as the engine lists it: card texts, low to high in Big Two order."""
        return [CARD_TEXT[c] for c in self.cards]


def _run_combo(cards: Sequence[int], seq_index: int, top: int) -> Combo:
    """A straight or straight flush whose top card of the sequence is ``top``."""
    suit = cards[0] & 3
    flush = all(c & 3 == suit for c in cards)
    kind = Kind.STRAIGHT_FLUSH if flush else Kind.STRAIGHT
    ordered = tuple(sorted(cards))
    return Combo(ordered, kind, (5, kind, seq_index, top & 3, *ordered[::-1]))


def _five(cards: tuple[int, ...], straights: str) -> Combo | None:
    ranks = [c >> 2 for c in cards]
    high_first = cards[::-1]
    distinct = set(ranks)
    if len(distinct) == 5:
        seq_index = SEQUENCE_INDEX[straights].get(frozenset(distinct))
        if seq_index is not None:
            top_rank = SEQUENCES[straights][seq_index][-1]
            top = next(c for c in cards if c >> 2 == top_rank)
            return _run_combo(cards, seq_index, top)
        suit = cards[0] & 3
        if all(c & 3 == suit for c in cards):
            return Combo(cards, Kind.FLUSH, (5, Kind.FLUSH, *ranks[::-1], suit, *high_first))
        return None
    counts = sorted(ranks.count(r) for r in distinct)
    if counts == [2, 3]:
        triple = next(r for r in distinct if ranks.count(r) == 3)
        return Combo(cards, Kind.FULL_HOUSE, (5, Kind.FULL_HOUSE, triple, *high_first))
    if counts == [1, 4]:
        four = next(r for r in distinct if ranks.count(r) == 4)
        return Combo(cards, Kind.FOUR_OF_A_KIND, (5, Kind.FOUR_OF_A_KIND, four, *high_first))
    return None


def classify(cards: Iterable[int], straights: str = "big-two") -> Combo | None:
    """The combination these card ids make, or None if they make none."""
    ordered = tuple(sorted(cards))
    size = len(ordered)
    if len(set(ordered)) != size:
        return None
    if size == 1:
        return Combo(ordered, Kind.SINGLE, (1, Kind.SINGLE, ordered[0]))
    if size in (2, 3):
        if ordered[0] >> 2 != ordered[-1] >> 2:
            return None
        kind = Kind.PAIR if size == 2 else Kind.TRIPLE
        return Combo(ordered, kind, (size, kind, *ordered[::-1]))
    if size == 5:
        return _five(ordered, straights)
    return None


def _groups(hand: Iterable[int], of: int) -> dict[int, list[int]]:
    """Cards grouped by rank (``of=2``, shift) or by suit (``of=3``, mask), each sorted."""
    grouped: dict[int, list[int]] = {}
    for c in sorted(hand):
        key = c >> 2 if of == 2 else c & 3
        if key in grouped:
            grouped[key].append(c)
        else:
            grouped[key] = [c]
    return grouped


def _sets(by_rank: dict[int, list[int]], size: int) -> list[Combo]:
    kind = Kind.PAIR if size == 2 else Kind.TRIPLE
    return [
        Combo(chosen, kind, (size, kind, *chosen[::-1]))
        for group in by_rank.values()
        if len(group) >= size
        for chosen in combinations(group, size)
    ]


def _runs(by_rank: dict[int, list[int]], straights: str) -> list[Combo]:
    found = []
    for seq_index, seq in enumerate(SEQUENCES[straights]):
        groups = [by_rank.get(rank, []) for rank in seq]
        if all(groups):
            for chosen in product(*groups):
                found.append(_run_combo(chosen, seq_index, chosen[-1]))
    return found


def _flushes(hand: Iterable[int], straights: str) -> list[Combo]:
    found = []
    runs = SEQUENCE_INDEX[straights]
    for suit, group in _groups(hand, of=3).items():
        for chosen in combinations(group, 5):
            ranks = [c >> 2 for c in chosen]
            if frozenset(ranks) not in runs:
                key = (5, Kind.FLUSH, *ranks[::-1], suit, *chosen[::-1])
                found.append(Combo(chosen, Kind.FLUSH, key))
    return found


def _full_houses(by_rank: dict[int, list[int]]) -> list[Combo]:
    found = []
    for three, group3 in by_rank.items():
        if len(group3) < 3:
            continue
        for two, group2 in by_rank.items():
            if two == three or len(group2) < 2:
                continue
            for triple, pair in product(combinations(group3, 3), combinations(group2, 2)):
                cards = tuple(sorted(triple + pair))
                found.append(
                    Combo(cards, Kind.FULL_HOUSE, (5, Kind.FULL_HOUSE, three, *cards[::-1]))
                )
    return found


def _fours(hand: Sequence[int], by_rank: dict[int, list[int]]) -> list[Combo]:
    found = []
    for four, group in by_rank.items():
        if len(group) == 4:
            for extra in hand:
                if extra >> 2 != four:
                    cards = tuple(sorted((*group, extra)))
                    key = (5, Kind.FOUR_OF_A_KIND, four, *cards[::-1])
                    found.append(Combo(cards, Kind.FOUR_OF_A_KIND, key))
    return found


def _fives(
    hand: Sequence[int], by_rank: dict[int, list[int]], straights: str, weakest: Kind
) -> list[Combo]:
    """Every five-card hand of kind ``weakest`` or stronger (skipping weaker kinds is safe:
    they cannot beat a trick of kind ``weakest``)."""
    found = _runs(by_rank, straights)
    if weakest > Kind.STRAIGHT:
        found = [c for c in found if c.kind >= weakest]
    if weakest <= Kind.FLUSH:
        found += _flushes(hand, straights)
    if weakest <= Kind.FULL_HOUSE:
        found += _full_houses(by_rank)
    if weakest <= Kind.FOUR_OF_A_KIND:
        found += _fours(hand, by_rank)
    return found


def _of_size(
    hand: Sequence[int], by_rank: dict[int, list[int]], size: int, straights: str, weakest: Kind
) -> list[Combo]:
    if size == 1:
        return [Combo((c,), Kind.SINGLE, (1, Kind.SINGLE, c)) for c in hand]
    if size in (2, 3):
        return _sets(by_rank, size)
    if size == 5:
        return _fives(hand, by_rank, straights, weakest)
    return []


def combos_of_size(hand: Sequence[int], size: int, straights: str = "big-two") -> list[Combo]:
    """Every combination of ``size`` cards that ``hand`` (distinct card ids) can make."""
    return _of_size(hand, _groups(hand, of=2), size, straights, Kind.STRAIGHT)


def plays(
    hand: Sequence[int],
    trick: Combo | None = None,
    straights: str = "big-two",
    must_contain: int | None = None,
) -> list[Combo]:
    """Every play ``hand`` may make now, weakest first (by size, then strength).

    Leading (``trick`` None) it is every combination, restricted to those holding
    ``must_contain`` on the first lead of a deal; following, it is every combination of the
    trick's size that beats it.
    """
    by_rank = _groups(hand, of=2)
    if trick is None:
        found = [
            c
            for size in PLAY_SIZES
            for c in _of_size(hand, by_rank, size, straights, Kind.STRAIGHT)
        ]
        if must_contain is not None:
            found = [c for c in found if must_contain in c.cards]
    else:
        candidates = _of_size(hand, by_rank, trick.key[0], straights, trick.kind)
        found = [c for c in candidates if c.key > trick.key]
    found.sort(key=lambda c: c.key)
    return found


def brute_force_plays(
    hand: Sequence[int],
    trick: Combo | None = None,
    straights: str = "big-two",
    must_contain: int | None = None,
) -> list[Combo]:
    """The same as ``plays``, by trying every subset of 1, 2, 3 or 5 cards (slow; a check)."""
    found = []
    for size in PLAY_SIZES:
        for chosen in combinations(sorted(hand), size):
            combo = classify(chosen, straights)
            if combo is None or (must_contain is not None and must_contain not in chosen):
                continue
            if trick is None or combo.beats(trick):
                found.append(combo)
    found.sort(key=lambda c: c.key)
    return found
