"""Poker hands: the best five-card hand of a row of any length, with wild cards.

The value of a row is a *score*, one int that orders hands (bigger is better, equal ties),
and its *key*, the same value as a tuple ``(category, v1, v2, v3, v4, v5)``:

- ``category``: 0 high card, 1 pair, 2 two pair, 3 three of a kind, 4 straight, 5 flush,
  6 full house, 7 four of a kind, 8 straight flush, 9 five of a kind (rules.md);
- ``v1..v5``: the ranks of the five cards used, most significant first (grouped cards
  before kickers), where a rank is 1 (deuce) to 13 (ace), so ``KKK55`` is
  ``12 12 12 4 4``, and 0 is a worthless padding card: a row of fewer than five cards
  counts as padded with cards that rank below a deuce and match nothing. The low ace of
  the wheel (A-2-3-4-5) is written last as 13; only the straight's top card matters.

Comparing keys as lists orders hands, and equal keys tie (a hand made with wilds ties
the same hand made without). The score packs the key into 4-bit fields, so comparing
scores is the same as comparing keys, only cheaper.

Wild cards are fully wild. Which cards are wild is a set of rank indexes (the joker's
rank is ``JOKER_RANK``); a wild never counts as its own rank. In a flush a wild becomes
the highest rank the suit lacks.

Speed: a row is summarised by bitmasks over the 13 ranks (``m[5 + k]`` holds the ranks
seen at least ``k`` times, one mask per suit) and a wild count; every category is then a
few lookups in tables indexed by a rank mask. :class:`HandRow` keeps that summary and
updates it one card at a time, which is what Oceans 11 rows do.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from judge.cards import JOKER_RANK, Card, card

HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH = 0, 1, 2, 3, 4, 5
FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, FIVE_OF_A_KIND = 6, 7, 8, 9
CATEGORY_NAMES: Final = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "five of a kind",
)

#: Which ranks are wild, by convention of the variants (rules.md).
NO_WILDS: Final[frozenset[int]] = frozenset()
JOKERS_WILD: Final[frozenset[int]] = frozenset({JOKER_RANK})
DEUCES_WILD: Final[frozenset[int]] = frozenset({JOKER_RANK, 0})

ALL: Final = (1 << 13) - 1
ACE_BIT: Final = 1 << 12
_MASKS: Final = range(1 << 13)
BIT: Final = [1 << r for r in range(13)]


class DuplicateCardError(ValueError):
    """The same card twice in one row: no deck holds a card twice (jokers excepted)."""


class WildnessError(ValueError):
    """A joker in a game where jokers are not wild (the game has no jokers)."""


def _pack(values: Sequence[int]) -> int:
    """Five 4-bit fields, most significant first; missing values are padding (0)."""
    padded = [*values, 0, 0, 0, 0, 0][:5]
    out = 0
    for v in padded:
        out = out << 4 | v
    return out


def _values_desc(mask: int) -> list[int]:
    return [r + 1 for r in range(12, -1, -1) if mask >> r & 1]


# Tables indexed by a 13-bit rank mask.
HIV: Final = [m.bit_length() for m in _MASKS]  # highest rank value, 0 if none
HIBIT: Final = [1 << (m.bit_length() - 1) if m else 0 for m in _MASKS]
POP: Final = [m.bit_count() for m in _MASKS]
TOP2: Final = [_pack(_values_desc(m)[:2]) >> 12 for m in _MASKS]  # two fields
TOP3: Final = [_pack(_values_desc(m)[:3]) >> 8 for m in _MASKS]  # three fields
TOP5: Final = [_pack(_values_desc(m)[:5]) for m in _MASKS]


def _n_of(mask: int, copies: int) -> int:
    v = mask.bit_length()
    return _pack([v] * copies) if v else 0


FIVE_OF: Final = [FIVE_OF_A_KIND << 20 | _n_of(m, 5) for m in _MASKS]
QUADS_OF: Final = [FOUR_OF_A_KIND << 20 | _n_of(m, 4) for m in _MASKS]
FULL_OF: Final = [FULL_HOUSE << 20 | _n_of(m, 3) for m in _MASKS]
TRIPS_OF: Final = [THREE_OF_A_KIND << 20 | _n_of(m, 3) for m in _MASKS]
PAIR_OF: Final = [PAIR << 20 | _n_of(m, 2) for m in _MASKS]
TWO_PAIR_OF: Final = [TWO_PAIR << 20 | _n_of(m, 2) for m in _MASKS]
TWO_PAIR_LOW: Final = [_n_of(m, 2) >> 8 for m in _MASKS]  # the lower pair's two fields
FIVE_MIN: Final = FIVE_OF_A_KIND << 20
QUADS_MIN: Final = FOUR_OF_A_KIND << 20
FLUSH_MIN: Final = FLUSH << 20
SF_MIN: Final = STRAIGHT_FLUSH << 20
BEST_SCORE: Final = FIVE_OF[ACE_BIT]
FIVE_OF_RANK: Final = [FIVE_OF[1 << r] for r in range(13)]

#: The five ranks of the straight topped by rank index t (t = 3 is the wheel, 5 high).
_STRAIGHTS: Final = [
    (t, (0b11111 << (t - 4)) if t >= 4 else (0b1111 | ACE_BIT)) for t in range(12, 2, -1)
]


def _straight_fields(top: int) -> int:
    if top == 3:
        return _pack([4, 3, 2, 1, 13])
    return _pack([top + 1, top, top - 1, top - 2, top - 3])


@cache
def _tables(wilds: int) -> tuple[list[int], list[int]]:
    """For ``wilds`` wild cards (0 to 4): the straight table and the flush table.

    ``straight[m]`` is the score of the best straight from the ranks in ``m`` (0 if none);
    ``flush[m]`` the score of the best flush or straight flush from one suit's ranks ``m``.
    """
    straight = [0] * (1 << 13)
    for m in _MASKS:
        for top, need in _STRAIGHTS:
            if POP[m & need] + wilds >= 5:
                straight[m] = STRAIGHT << 20 | _straight_fields(top)
                break
    flush = [0] * (1 << 13)
    for m in _MASKS:
        if POP[m] + wilds < 5:
            continue
        if straight[m]:
            flush[m] = STRAIGHT_FLUSH << 20 | (straight[m] & 0xFFFFF)
            continue
        filled, left = m, wilds
        for r in range(12, -1, -1):
            if left and not filled >> r & 1:
                filled |= 1 << r
                left -= 1
        flush[m] = FLUSH << 20 | TOP5[filled]
    return straight, flush


def prepare() -> None:
    """Build every table now (about 0.1 s), so that no later evaluation pays for it."""
    for wilds in range(5):
        _tables(wilds)


def _score(m: list[int], w: int, fl: int, st: list[int]) -> int:
    """The score of a row summarised as ``m`` (see module doc), ``w`` wilds (at most 4),
    ``fl`` its best flush score (0 if none) and ``st`` the straight table for ``w``.

    Each category is tried from the top. Taking the highest possible group with all the
    wilds is right because any wild left over would make a higher category possible.
    """
    x = m[10 - w]  # a rank that makes five of a kind
    if x:
        return FIVE_OF[x]
    if fl >= SF_MIN:
        return fl
    x = m[9 - w]
    if x:
        return QUADS_OF[x] | HIV[m[6] & ~HIBIT[x]]
    x = m[8 - w]
    if x:
        b = HIBIT[x]
        p = HIV[m[7] & ~b]  # the pair is natural: the trips took every wild
        if p:
            return FULL_OF[x] | p << 4 | p
        if fl:
            return fl
        s = st[m[6]]
        if s:
            return s
        return TRIPS_OF[x] | TOP2[m[6] & ~b]
    if fl:
        return fl
    s = st[m[6]]
    if s:
        return s
    x = m[7 - w]
    if x:
        b = HIBIT[x]
        if not w:
            low = x & ~b
            if low:
                b2 = HIBIT[low]
                return TWO_PAIR_OF[x] | TWO_PAIR_LOW[low] | HIV[m[6] & ~b & ~b2]
        return PAIR_OF[x] | TOP3[m[6] & ~b]
    return TOP5[m[6] | ACE_BIT] if w else TOP5[m[6]]


def _wild_flags(wild_ranks: Collection[int]) -> list[int]:
    """Per rank index 0..13: 0 natural, 1 wild, 2 a joker that is not wild (an error)."""
    try:
        return _FLAGS[wild_ranks]  # type: ignore[index]
    except (KeyError, TypeError):
        pass
    flags = [1 if r in wild_ranks else 0 for r in range(14)]
    if not flags[JOKER_RANK]:
        flags[JOKER_RANK] = 2
    return flags


_FLAGS: Final[dict[frozenset[int], list[int]]] = {}
_FLAGS.update((w, _wild_flags(w)) for w in (NO_WILDS, JOKERS_WILD, DEUCES_WILD))


def _refuse(flag: int, c: Card) -> None:
    if flag == 2:
        raise WildnessError(f"{c} is not wild here and has no rank: this game has no jokers")


def _duplicate(c: Card) -> DuplicateCardError:
    return DuplicateCardError(f"{c} appears twice in one row; a deck holds each card once")


def score(cards: Iterable[Card], wild_ranks: Collection[int] = JOKERS_WILD) -> int:
    """The score of the best five-card hand in ``cards`` (any number, 0 to 65)."""
    flags = _wild_flags(wild_ranks)
    cnt = [0] * 13
    suits = [0] * 5
    m = [ALL] * 6 + [0] * 5
    w = 0
    for c in cards:
        r = c.rank
        if flags[r]:
            _refuse(flags[r], c)
            w += 1
            continue
        b = BIT[r]
        s = c.suit
        if suits[s] & b:
            raise _duplicate(c)
        suits[s] |= b
        k = cnt[r] + 1
        cnt[r] = k
        m[5 + k] |= b
    if w >= 5:
        return BEST_SCORE
    st, ft = _tables(w)
    fl = max(ft[suits[0]], ft[suits[1]], ft[suits[2]], ft[suits[3]], ft[suits[4]])
    return _score(m, w, fl, st)


def key_of(value: int) -> tuple[int, ...]:
    """The key tuple of a score: ``(category, v1, v2, v3, v4, v5)``."""
    return (
        value >> 20,
        value >> 16 & 15,
        value >> 12 & 15,
        value >> 8 & 15,
        value >> 4 & 15,
        value & 15,
    )


class HandRow:
    """A row of cards that grows one card at a time, always knowing its best hand.

    ``add`` updates the rank and suit masks in place and re-scores with table lookups, so
    it costs about as much as a few dictionary lookups, whatever the row's length.
    ``score`` (an int) and ``key()`` order rows; ``hand()`` gives names and the cards used.
    """

    __slots__ = ("_cnt", "_fl", "_flags", "_ft", "_m", "_st", "_suits", "_w", "cards", "score")

    def __init__(self, cards: Iterable[Card] = (), wild_ranks: Collection[int] = JOKERS_WILD):
        self._flags = _wild_flags(wild_ranks)
        self.cards: list[Card] = []
        self.score = 0
        self._cnt = [0] * 13
        self._suits = [0] * 5
        self._m = [ALL] * 6 + [0] * 5
        self._w = 0
        self._fl = 0
        self._st, self._ft = _tables(0)
        for c in cards:
            self.add(c)

    def add(self, c: Card) -> None:
        """Add one card to the row and update the score."""
        r = c.rank
        if self._flags[r]:
            self._add_wild(c)
            return
        b = BIT[r]
        suits = self._suits
        s = c.suit
        sm = suits[s]
        if sm & b:
            raise _duplicate(c)
        sm |= b
        suits[s] = sm
        cnt = self._cnt
        k = cnt[r] + 1
        cnt[r] = k
        m = self._m
        m[5 + k] |= b
        self.cards.append(c)
        fl = self._ft[sm]
        if fl > self._fl:
            self._fl = fl
        else:
            fl = self._fl
        old = self.score
        w = self._w
        if old >= QUADS_MIN:  # cheap cases first: few cards can still improve these
            if old >= FIVE_MIN:
                if k + w >= 5 and FIVE_OF_RANK[r] > old:
                    self.score = FIVE_OF_RANK[r]
                return
            if k + w < 4 and fl <= old and r + 1 <= old & 15:
                return  # neither a group nor a flush nor a better kicker
        elif old >= FLUSH_MIN and k + w < 2 and fl <= old:
            return  # a lone natural card cannot better a flush or a full house
        self.score = _score(m, w, fl, self._st)

    def _add_wild(self, c: Card) -> None:
        _refuse(self._flags[c.rank], c)
        self.cards.append(c)
        w = self._w = min(self._w + 1, 5)
        if w >= 5:
            self.score = BEST_SCORE
            return
        self._st, ft = _tables(w)
        self._ft = ft
        self._fl = max(ft[sm] for sm in self._suits)
        self.score = _score(self._m, w, self._fl, self._st)

    def copy(self) -> HandRow:
        """An independent row with the same cards (cheaper than adding them again)."""
        new = HandRow.__new__(HandRow)
        new._flags = self._flags
        new.cards = self.cards.copy()
        new.score = self.score
        new._cnt = self._cnt.copy()
        new._suits = self._suits.copy()
        new._m = self._m.copy()
        new._w = self._w
        new._fl = self._fl
        new._st = self._st
        new._ft = self._ft
        return new

    def __len__(self) -> int:
        return len(self.cards)

    def key(self) -> tuple[int, ...]:
        return key_of(self.score)

    def hand(self) -> Hand:
        return _hand(self.cards, self._flags, self.score)


@dataclass(frozen=True)
class Hand:
    """A row's best hand: its key, names, and the five (or fewer) cards used.

    ``best`` lists the cards used as they are in the row; ``stands_for`` says what each
    is worth (a wild's stand-in; a natural card stands for itself). Wild cards outside
    a flush may stand for any suit; the suit shown is the first one not already used.
    """

    key: tuple[int, ...]
    category: str
    name: str
    best: tuple[Card, ...]
    stands_for: tuple[Card, ...]


def evaluate(cards: Iterable[Card], wild_ranks: Collection[int] = JOKERS_WILD) -> Hand:
    """The best hand of a row, with names and the cards used."""
    row = list(cards)
    return _hand(row, _wild_flags(wild_ranks), score(row, wild_ranks))


_SINGULAR: Final = ("", "deuce", "three", "four", "five", "six", "seven", "eight", "nine")
_SINGULAR_HIGH: Final = ("ten", "jack", "queen", "king", "ace")
_PLURAL: Final = ("", "deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines")
_PLURAL_HIGH: Final = ("tens", "jacks", "queens", "kings", "aces")
_ONE: Final = _SINGULAR + _SINGULAR_HIGH
_MANY: Final = _PLURAL + _PLURAL_HIGH


def hand_name(key: Sequence[int]) -> str:
    """A readable name: ``full house, kings over fives``, ``pair of aces``, ``high card, ten``."""
    cat, v = key[0], key[1:]
    one, many = _ONE[v[0]], _MANY[v[0]]
    if cat == FIVE_OF_A_KIND:
        return f"five of a kind, {many}"
    if cat == FOUR_OF_A_KIND:
        return f"four of a kind, {many}"
    if cat == FULL_HOUSE:
        return f"full house, {many} over {_MANY[v[3]]}"
    if cat in (STRAIGHT_FLUSH, FLUSH, STRAIGHT):
        return f"{CATEGORY_NAMES[cat]}, {one} high"
    if cat == THREE_OF_A_KIND:
        return f"three of a kind, {many}"
    if cat == TWO_PAIR:
        return f"two pair, {many} and {_MANY[v[2]]}"
    if cat == PAIR:
        return f"pair of {many}"
    return f"high card, {one}" if v[0] else "no cards"


def _hand(cards: Sequence[Card], flags: list[int], value: int) -> Hand:
    key = key_of(value)
    ranks = [v - 1 for v in key[1:] if v]  # the wheel's ace is 13 like any ace
    wilds = [c for c in cards if flags[c.rank]]
    naturals = [c for c in cards if not flags[c.rank]]
    if key[0] in (FLUSH, STRAIGHT_FLUSH):
        suit = _flush_suit(naturals, len(wilds), value)
        wanted = [card(r, suit) for r in ranks]
        used = [(w if w in naturals else wilds.pop(0), w) for w in wanted]
    else:
        used = []
        pool = naturals.copy()
        for r in ranks:
            natural = next((c for c in pool if c.rank == r), None)
            if natural is not None:
                pool.remove(natural)
                used.append((natural, natural))
            else:
                taken = {s.suit for _, s in used if s.rank == r}
                suit = next((s for s in range(4) if s not in taken), 0)
                used.append((wilds.pop(0), card(r, suit)))
    return Hand(
        key=key,
        category=CATEGORY_NAMES[key[0]],
        name=hand_name(key),
        best=tuple(c for c, _ in used),
        stands_for=tuple(s for _, s in used),
    )


def _flush_suit(naturals: Sequence[Card], wilds: int, value: int) -> int:
    _, ft = _tables(min(wilds, 4))
    for suit in range(5):
        mask = sum(BIT[c.rank] for c in naturals if c.suit == suit)
        if ft[mask] == value:
            return suit
    raise AssertionError("a flush score with no suit that makes it")  # pragma: no cover
