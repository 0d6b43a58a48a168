"""Oceans 11: two players, one deck each, a running contest of poker hands.

Each player turns the top card of their shuffled deck; the rows of face-up cards are
compared as poker hands (judge.hands: best five cards, short rows padded, wilds per
variant). The weaker player either deals another card onto their row or concedes the
hand. Equal rows make both players deal. The first to win the target number of hands
wins the game. The decks' orders are the only secret, hidden from their owners too.

Only real decisions are asked of a seat: the weaker player's "deal" or "concede" (only
"deal" while the opponent needs one more win). Everything forced is carried out by the
engine at once: starting a hand, dealing on a tie, conceding with no cards left, and the
run of hands won one card at a time once the opponent's deck is empty. Rules and their
tests: docs/rules/oceans11.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final

from judge.cards import JOKER, Card, format_cards, make_deck
from judge.engine import Action, Game, JSONDict, Result, Seat, redeal
from judge.hands import DEUCES_WILD, JOKERS_WILD, NO_WILDS, HandRow, hand_name, key_of

DEAL: Final = "deal"
CONCEDE: Final = "concede"


@dataclass(frozen=True)
class VariantSpec:
    """What a variant changes: the decks, which cards are wild, and the hands to win."""

    suits: int
    #: jokers in each player's deck
    jokers: int
    wilds: frozenset[int]
    #: the game is "best of" this many hands
    hands: int
    #: hands needed to win
    target: int
    #: mini: one 52-card deck shuffled and split in half between the players
    split: bool = False

    def deck(self) -> list[Card]:
        """One player's deck in its fixed order (for split variants: before the split)."""
        return make_deck(suits=self.suits, jokers=0 if self.split else self.jokers)


VARIANTS: Final[dict[str, VariantSpec]] = {
    "standard": VariantSpec(4, 2, JOKERS_WILD, 11, 6),
    "no-wilds": VariantSpec(4, 0, NO_WILDS, 11, 6),
    "deuces-wild": VariantSpec(4, 2, DEUCES_WILD, 11, 6),
    "five-suits": VariantSpec(5, 0, NO_WILDS, 13, 7),
    "mini": VariantSpec(4, 0, NO_WILDS, 5, 3, split=True),
    "mini-joker": VariantSpec(4, 1, JOKERS_WILD, 5, 3, split=True),
}


class HandEnd(StrEnum):
    """How a hand ended (the record and observations store the string)."""

    #: the weaker player chose to concede
    CONCEDED = "conceded"
    #: the weaker player had to deal and had no cards left
    NO_CARDS = "no cards"
    #: the opponent's deck was empty at the start of the hand
    RUN = "run"
    #: a tie with both decks empty
    VOID = "void"


@dataclass(frozen=True)
class HandOutcome:
    """How one hand ended: its winner (None for a void hand), why, and the two rows."""

    winner: Seat | None
    how: HandEnd
    rows: tuple[tuple[str, ...], tuple[str, ...]]

    def to_json(self) -> JSONDict:
        return {"winner": self.winner, "how": str(self.how), "rows": [list(r) for r in self.rows]}


class Oceans11(Game):
    """The Oceans 11 engine: two players, one of six variants (VARIANTS)."""

    name = "oceans11"
    title = "Oceans 11"
    variants: ClassVar[tuple[str, ...]] = tuple(VARIANTS)
    variant_titles: ClassVar[Mapping[str, str]] = {
        "standard": "Standard (jokers wild)",
        "no-wilds": "No wilds",
        "deuces-wild": "Deuces wild",
        "five-suits": "Five suits",
        "mini": "Mini (one pack split)",
        "mini-joker": "Mini with jokers",
    }
    #: The most moves a game takes in ordinary play (per deal or hand where it has them).
    moves_per_game = 120
    demo_format: ClassVar[Mapping[str, Any]] = {"table_size": 2, "games_per_pairing": 2}
    #: Is montecarlo stronger than greedy? Decided H1 in 120-200 games.
    demo_duel = ("montecarlo", "greedy")
    renderer = "oceans11"
    situations: ClassVar[Mapping[str, str]] = {
        "deal-or-concede": "behind in a hand: deal another card or concede",
        "must-deal": "behind with the opponent one win from the game (only deal)",
        "last-card": "behind with one card left in your deck",
    }

    def _setup(self) -> None:
        self.spec = VARIANTS[self.variant]
        self.decks = self._deal_decks()
        self.turned = [0, 0]
        self.rows = [HandRow(wild_ranks=self.spec.wilds) for _ in range(2)]
        self.wins = [0, 0]
        self.used: list[list[Card]] = [[], []]
        self.outcomes: list[HandOutcome] = []
        self.deciding: Seat | None = None
        self.hand_open = False
        self.over = False
        self._advance()

    def _deal_decks(self) -> list[list[Card]]:
        spec = self.spec
        if not spec.split:
            return [self.shuffle(spec.deck(), "deck", seat) for seat in range(2)]
        pack = self.shuffle(spec.deck(), "deck")
        halves = [pack[:26], pack[26:]]
        if not spec.jokers:
            return halves
        return [
            self.shuffle(half + [JOKER] * spec.jokers, "deck", seat)
            for seat, half in enumerate(halves)
        ]

    # Forced steps.

    def cards_left(self, seat: Seat) -> int:
        return len(self.decks[seat]) - self.turned[seat]

    def _turn(self, seat: Seat) -> None:
        self.rows[seat].add(self.decks[seat][self.turned[seat]])
        self.turned[seat] += 1

    def _advance(self) -> None:
        """Carry out forced steps until a seat must decide or the game is over."""
        self.deciding = None
        while not self.over:
            if not self.hand_open:
                self._start_hand()
                continue
            mine, theirs = self.rows[0].score, self.rows[1].score
            if mine == theirs:
                self._tie()
                continue
            weaker = 0 if mine < theirs else 1
            if not self.cards_left(weaker):
                self._win(1 - weaker, HandEnd.NO_CARDS)
                continue
            self.deciding = weaker
            return

    def _start_hand(self) -> None:
        have = [seat for seat in range(2) if self.cards_left(seat)]
        if not have:
            self.over = True
        elif len(have) == 1:  # the run: one card turned, one hand won
            self._turn(have[0])
            self._win(have[0], HandEnd.RUN)
        else:
            self._turn(0)
            self._turn(1)
            self.hand_open = True

    def _tie(self) -> None:
        empty = [seat for seat in range(2) if not self.cards_left(seat)]
        if len(empty) == 2:
            self._end_hand(None, HandEnd.VOID)
            self.over = True
        elif empty:
            self._win(1 - empty[0], HandEnd.NO_CARDS)
        else:
            self._turn(0)
            self._turn(1)

    def _win(self, seat: Seat, how: HandEnd) -> None:
        self.wins[seat] += 1
        self._end_hand(seat, how)
        if self.wins[seat] >= self.spec.target:
            self.over = True

    def _end_hand(self, winner: Seat | None, how: HandEnd) -> None:
        rows = (tuple(format_cards(self.rows[0].cards)), tuple(format_cards(self.rows[1].cards)))
        self.outcomes.append(HandOutcome(winner, how, rows))
        for seat in range(2):
            self.used[seat].extend(self.rows[seat].cards)
            self.rows[seat] = HandRow(wild_ranks=self.spec.wilds)
        self.hand_open = False

    # The interface.

    def may_concede(self, seat: Seat) -> bool:
        """Conceding is refused while the opponent needs one more win (rules.md)."""
        return self.wins[1 - seat] < self.spec.target - 1

    def to_act(self) -> tuple[Seat, ...]:
        return () if self.over or self.deciding is None else (self.deciding,)

    def legal_actions(self, seat: Seat) -> list[Action]:
        if seat not in self.to_act():
            return []
        return [DEAL, CONCEDE] if self.may_concede(seat) else [DEAL]

    def situation(self, seat: Seat) -> tuple[str, ...]:
        """Whether conceding is allowed, and whether the seat deals its last card."""
        if seat not in self.to_act():
            return ()
        kind = "deal-or-concede" if self.may_concede(seat) else "must-deal"
        return (kind, "last-card") if self.cards_left(seat) == 1 else (kind,)

    def why_illegal(self, seat: Seat, action: Action) -> str | None:
        reason = super().why_illegal(seat, action)
        if reason is not None and action == CONCEDE and seat in self.to_act():
            return (
                f"seat {seat} may not concede: the opponent needs one more win and seat "
                f"{seat} still has cards, so it must deal"
            )
        return reason

    def _apply(self, seat: Seat, action: Action) -> None:
        if action == DEAL:
            self._turn(seat)
        else:
            self._win(1 - seat, HandEnd.CONCEDED)
        self._advance()

    def fallback_action(self, seat: Seat) -> Action:
        return CONCEDE if self.may_concede(seat) else DEAL

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        return Result.from_scores(list(self.wins))

    def observation(self, seat: Seat) -> JSONDict:
        """Everything but the decks' orders: rows, hands, wins, deck sizes, used cards."""
        return {
            "game": self.name,
            "variant": self.variant,
            "seat": seat,
            "target": self.spec.target,
            "wins": list(self.wins),
            "hand": len(self.outcomes) + (1 if self.hand_open else 0),
            "rows": [format_cards(row.cards) for row in self.rows],
            "row_hands": [_row_json(row) for row in self.rows],
            "deck_sizes": [self.cards_left(s) for s in range(2)],
            "used": [format_cards(cards) for cards in self.used],
            "to_act": self.deciding,
            "may_concede": self.deciding is not None and self.may_concede(self.deciding),
            "past_hands": [outcome.to_json() for outcome in self.outcomes],
            "over": self.over,
        }

    def redeal_unseen(self, seat: Seat, rng: random.Random) -> bool:
        """Reorder both decks' unturned cards (hidden from their owners too); in the split
        variants, where which half holds a card is secret as well, exchange them."""
        rests = [self.decks[s][self.turned[s] :] for s in range(2)]
        groups = [rests] if self.spec.split else [[rest] for rest in rests]
        dealt = [pile for group in groups for pile in redeal(group, rng)[0]]
        for s in range(2):
            self.decks[s][self.turned[s] :] = dealt[s]
        return dealt != rests

    def revealed(self) -> JSONDict:
        return {"decks": [format_cards(deck) for deck in self.decks]}


def _row_json(row: HandRow) -> JSONDict:
    key = key_of(row.score)
    return {"name": hand_name(key), "key": list(key)}
