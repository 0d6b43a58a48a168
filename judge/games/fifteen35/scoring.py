"""Fifteen Thirty-Five scoring: card values, best totals, naturals and the pot split.

Everything here is a pure function over cards, so the rules can be tested without a table.
Totals are in half-points (ints) so that 0.5-point picture cards stay exact: 15 is 30 and
35 is 70.

Each card is valued separately for each target: an Ace is 1 or 11, a King, Queen or Jack
0.5 or 10, a 2-10 its face value. Since every Ace adds the same 10 points when counted
high and every picture card the same 9.5, a hand's reachable totals are
``base + 20*a + 19*f`` (half-points) for ``a`` high Aces and ``f`` high pictures: a few
dozen sums instead of the 2**k valuations a brute force tries.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, Literal, TypeAlias

from judge.cards import Card

Seat: TypeAlias = int
#: Half-points: 2 per point.
HalfPoints: TypeAlias = int
#: How a hand stands for one target; the smaller, the better: (distance, over, cards).
Standing: TypeAlias = tuple[int, int, int]
Declaration: TypeAlias = Literal["15", "35", "both"]

TARGET_15: Final = 30
TARGET_35: Final = 70
DECLARATIONS: Final[tuple[str, ...]] = ("15", "35", "both")

_ACE: Final = 12
_PICTURES: Final = (9, 10, 11)  # J, Q, K
_ACE_LOW, _ACE_STEP = 2, 20  # 1 point, +10 when high
_PICTURE_LOW, _PICTURE_STEP = 1, 19  # 0.5 point, +9.5 when high


def card_values(card: Card) -> tuple[HalfPoints, ...]:
    """Every value ``card`` may count for, in half-points."""
    if card.rank == _ACE:
        return (_ACE_LOW, _ACE_LOW + _ACE_STEP)
    if card.rank in _PICTURES:
        return (_PICTURE_LOW, _PICTURE_LOW + _PICTURE_STEP)
    return (2 * (card.rank + 2),)


#: Per rank (2 .. A): the low value, and whether the card is an Ace or a picture.
_LOW_VALUE: Final = tuple(2 * (rank + 2) for rank in range(9)) + (_PICTURE_LOW,) * 3 + (_ACE_LOW,)


#: A hand as far as its totals go: (its low total in half-points, its Aces, its pictures).
Shape: TypeAlias = tuple[HalfPoints, int, int]


def hand_shape(cards: Iterable[Card]) -> Shape:
    """The low total, Aces and pictures of ``cards``: all that decides their totals."""
    base = aces = pictures = 0
    for card in cards:
        rank = card.rank
        base += _LOW_VALUE[rank]
        if rank == _ACE:
            aces += 1
        elif rank > 8:
            pictures += 1
    return base, aces, pictures


def with_rank(shape: Shape, rank: int) -> Shape:
    """``shape`` with one more card of ``rank``."""
    base, aces, pictures = shape
    return base + _LOW_VALUE[rank], aces + (rank == _ACE), pictures + (8 < rank < _ACE)


def shape_totals(shape: Shape) -> set[HalfPoints]:
    """Every total of a hand of this shape (half-points): ``base + 20*a + 19*f``."""
    base, aces, pictures = shape
    if not pictures:
        return {base + _ACE_STEP * a for a in range(aces + 1)}
    return {
        base + _ACE_STEP * a + _PICTURE_STEP * f
        for a in range(aces + 1)
        for f in range(pictures + 1)
    }


def reachable_totals(cards: Iterable[Card]) -> set[HalfPoints]:
    """Every total the hand can be counted as (half-points), by the Ace/picture shortcut."""
    return shape_totals(hand_shape(cards))


def brute_force_totals(cards: Sequence[Card]) -> set[HalfPoints]:
    """Every total, by trying every valuation of every card: the reference for tests."""
    return {sum(values) for values in itertools.product(*(card_values(c) for c in cards))}


def _rank_total(total: HalfPoints, target: HalfPoints) -> tuple[int, int]:
    """Nearer the target first, then under (or exact) before over."""
    return (abs(total - target), int(total > target))


def best_total(totals: Iterable[HalfPoints], target: HalfPoints) -> HalfPoints:
    """The best of ``totals`` for ``target``: nearest, then under beats over."""
    return min(totals, key=lambda total: _rank_total(total, target))


def standing(cards: Sequence[Card], target: HalfPoints) -> Standing:
    """How the hand stands for ``target`` (smaller is better): distance, over, card count."""
    distance, over = _rank_total(best_total(reachable_totals(cards), target), target)
    return (distance, over, len(cards))


def is_natural(cards: Iterable[Card]) -> bool:
    """A Natural 15/35: exactly 15 and exactly 35 are both reachable (it needs two Aces)."""
    totals = reachable_totals(cards)
    return TARGET_15 in totals and TARGET_35 in totals


def divide(amount: int, winners: Iterable[Seat], order: Sequence[Seat]) -> dict[Seat, int]:
    """``amount`` split equally among ``winners``; the chips that do not divide go to the
    first winner in ``order`` (the seats from the dealer's left)."""
    chosen = set(winners)
    ordered = [seat for seat in order if seat in chosen]
    if not ordered:
        raise ValueError("cannot divide chips among no winners")
    each, rest = divmod(amount, len(ordered))
    shares = dict.fromkeys(ordered, each)
    shares[ordered[0]] += rest
    return shares


def _best(seats: Iterable[Seat], standings: Mapping[Seat, Standing]) -> list[Seat]:
    """The seats with the best standing (all of them when tied); empty when none."""
    chosen = list(seats)
    if not chosen:
        return []
    top = min(standings[seat] for seat in chosen)
    return [seat for seat in chosen if standings[seat] == top]


def sweeps(
    seat: Seat,
    declarations: Mapping[Seat, str],
    by_15: Mapping[Seat, Standing],
    by_35: Mapping[Seat, Standing],
) -> bool:
    """Whether a "both" declarer strictly beats every other contender on each side."""
    for side, standings in (("15", by_15), ("35", by_35)):
        rivals = [o for o in declarations if o != seat and declarations[o] in (side, "both")]
        if any(standings[seat] >= standings[o] for o in rivals):
            return False
    return True


def split_pot(
    pot: int,
    order: Sequence[Seat],
    hands: Mapping[Seat, Sequence[Card]],
    declarations: Mapping[Seat, str] | None = None,
) -> dict[Seat, int]:
    """Chips won by each showdown player (only winners appear), summing to ``pot``.

    ``order`` lists the showdown players from the dealer's left. Naturals take the whole
    pot; otherwise ``declarations`` (15, 35 or both for every player in ``order``) decide.
    """
    naturals = [seat for seat in order if is_natural(hands[seat])]
    if naturals:
        return divide(pot, naturals, order)
    if declarations is None or set(declarations) != set(order):
        raise ValueError("without a natural, every showdown player must declare")
    bad = sorted({d for d in declarations.values() if d not in DECLARATIONS})
    if bad:
        raise ValueError(f"declarations are 15, 35 or both, not {bad[0]!r}")
    by_15 = {seat: standing(hands[seat], TARGET_15) for seat in order}
    by_35 = {seat: standing(hands[seat], TARGET_35) for seat in order}
    for seat in order:
        if declarations[seat] == "both" and sweeps(seat, declarations, by_15, by_35):
            return divide(pot, [seat], order)
    win_15 = _best((s for s in order if declarations[s] == "15"), by_15)
    win_35 = _best((s for s in order if declarations[s] == "35"), by_35)
    if not win_15 and not win_35:
        win_15, win_35 = _best(order, by_15), _best(order, by_35)
    if not win_15 or not win_35 or set(win_15) == set(win_35):
        return divide(pot, win_15 or win_35, order)
    shares = divide(pot // 2, win_15, order)
    for seat, chips in divide(pot - pot // 2, win_35, order).items():
        shares[seat] = shares.get(seat, 0) + chips
    return shares
