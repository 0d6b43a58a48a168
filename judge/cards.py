"""Playing cards and their text notation, shared by every game.

A card is written as rank then suit: ranks ``2 3 4 5 6 7 8 9 T J Q K A``, suits
``c d h s`` (and ``x``, the fifth suit of the 65-card deck), so ``Ts``, ``Ad``, ``2c``;
a joker is ``JK``. Cards are interned: there is exactly one object per card text, so
comparing and hashing them is cheap. Jokers are all the same card (``JK``); a deck with
two jokers simply holds that card twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhsx"
JOKER_TEXT: Final = "JK"
#: Rank index used for the joker; real ranks are 0 (deuce) to 12 (ace).
JOKER_RANK: Final = 13
#: Suit index used for the joker; real suits are 0 (c) to 4 (x).
JOKER_SUIT: Final = 5


class CardParseError(ValueError):
    """A token that is not a card; the message names the token."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card: ``rank`` 0..12 (2..A) or 13 for the joker; ``suit`` 0..4 or 5 for the joker."""

    rank: int
    suit: int

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    def __str__(self) -> str:
        if self.is_joker:
            return JOKER_TEXT
        return RANKS[self.rank] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card({self})"


JOKER: Final = Card(JOKER_RANK, JOKER_SUIT)
_BY_TEXT: Final[dict[str, Card]] = {
    str(card): card for card in (Card(r, s) for r in range(13) for s in range(5))
} | {JOKER_TEXT: JOKER}


def card(rank: int, suit: int) -> Card:
    """The interned card of a rank index and suit index."""
    return _BY_TEXT[RANKS[rank] + SUITS[suit]]


def parse_card(token: str) -> Card:
    """Parse one card token such as ``"Ts"`` or ``"JK"``; anything else raises CardParseError."""
    found = _BY_TEXT.get(token) if isinstance(token, str) else None
    if found is None:
        raise CardParseError(
            f"bad card {token!r}: write rank (2-9, T, J, Q, K, A) then suit (c, d, h, s, x), "
            "or JK for a joker"
        )
    return found


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards from a whitespace- or comma-separated string, or from a list of tokens."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(token) for token in tokens]


def format_cards(cards: Iterable[Card]) -> list[str]:
    """The text of each card, in order (the JSON form of a list of cards)."""
    return [str(c) for c in cards]


def make_deck(suits: int = 4, jokers: int = 0) -> list[Card]:
    """A fresh deck in a fixed order: ``suits`` (4 or 5) of 13 ranks each, then the jokers."""
    if suits not in (4, 5):
        raise ValueError(f"a deck has 4 or 5 suits, not {suits}")
    if jokers < 0:
        raise ValueError(f"jokers must be zero or more, not {jokers}")
    return [card(r, s) for s in range(suits) for r in range(13)] + [JOKER] * jokers
