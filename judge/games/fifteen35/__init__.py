"""Fifteen Thirty-Five: a split-pot stud game aiming at 15 and 35 (seed 002, rules.md).

A game is several hands; the dealer moves one seat each hand, and the result is each
seat's net chips. A hand goes: ante; three cards each face down; from the dealer's left
each player exposes one of them; a betting round; then card offers (face up) alternating
with betting rounds until one player is left, nobody takes a card, or the stock is empty;
a final betting round; the showdown (naturals, else simultaneous declarations).

Betting is fixed-limit: a bet or raise is ``bet`` chips, with at most ``max_raises``
raises after the opening bet in one round. Folding is only offered when facing a bet (a
free check is never worse). Chips are never short: a hand's result is each seat's
winnings minus what it put in.

Everything a seat sees is assembled from public facts plus its own hidden cards; the
declarations of a showdown are kept aside until every player has declared.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar

from judge.cards import Card, format_cards, make_deck
from judge.engine import Action, Game, GameError, JSONDict, Result, Seat, redeal
from judge.games.fifteen35.scoring import DECLARATIONS, is_natural, split_pot
from judge.options import int_option

_BETTING = ("check", "bet", "fold", "call", "raise")


class Phase(StrEnum):
    """What a hand is waiting for (observations carry the string)."""

    EXPOSE = "expose"
    BET = "bet"
    OFFER = "offer"
    DECLARE = "declare"
    OVER = "over"


_OFFER = ("take", "refuse")


class FifteenThirtyFive(Game):
    """The engine; see the module docstring and docs/rules/fifteen35.md."""

    name = "fifteen35"
    title = "Fifteen Thirty-Five"
    min_players = 2
    max_players = 8
    default_players = 6
    #: ``hands`` 0 means one hand per player, so that everyone deals once.
    option_schema = (
        int_option("ante", 1, 0, 1000, "chips each player puts in before the deal"),
        int_option("bet", 2, 1, 1000, "the size of a bet or raise"),
        int_option("max_raises", 3, 0, 10, "raises after the opening bet in one round"),
        int_option("hands", 0, 0, 64, "hands in one game (0: one per player)"),
    )
    private_keys = ("hidden",)
    zero_sum = True
    #: The most moves a game takes in ordinary play (per deal or hand where it has them).
    moves_per_game = 40
    repeat_options = ("hands",)
    demo_format: ClassVar[Mapping[str, Any]] = {"table_size": 3, "games_per_pairing": 1}
    check_options: ClassVar[Mapping[str, Any]] = {"hands": 1}
    renderer = "fifteen35"
    situations: ClassVar[Mapping[str, str]] = {
        "expose": "choosing the card to expose",
        "bet-open": "betting with nothing to call (check or bet)",
        "bet-facing": "facing a bet (fold, call or raise)",
        "bet-capped": "facing a bet at the raise cap (fold or call)",
        "bet-final": "betting in a hand's final round",
        "offer": "offered a card (take or refuse)",
        "declare": "declaring 15, 35 or both at the showdown",
    }

    # Setting up.

    @classmethod
    def moves_estimate(cls, options: Mapping[str, Any] | None = None, players: int = 0) -> int:
        """Hands 0 means one hand per player: the moves follow the table size."""
        hands = {**cls.option_defaults, **(options or {})}.get("hands")
        if hands == 0:
            return cls.moves_per_game * (players or cls.default_players)
        return super().moves_estimate(options, players)

    def _setup(self) -> None:
        self.hand_count = self.options["hands"] or self.players
        self.chips = [0] * self.players
        self.deals: list[JSONDict] = []
        self.last_hand: JSONDict | None = None
        self.hand_no = -1
        self.phase = Phase.OVER
        self._start_hand()

    def _start_hand(self) -> None:
        """Shuffle, deal three cards each from the dealer's left, take the antes."""
        n = self.players
        self.hand_no += 1
        self.dealer = self.hand_no % n
        self.order = [(self.dealer + 1 + i) % n for i in range(n)]
        deck = self.shuffle(make_deck(), "hand", self.hand_no)
        self.hidden: list[list[Card]] = [[] for _ in range(n)]
        for i in range(3 * n):
            self.hidden[self.order[i % n]].append(deck[i])
        self.stock = deck[3 * n :]
        self.exposed: list[list[Card]] = [[] for _ in range(n)]
        self.folded = [False] * n
        self.frozen = [False] * n
        self.refusals = [0] * n
        self.committed = [self.options["ante"]] * n
        self.pot = self.options["ante"] * n
        self.hand_history: list[list[Any]] = []
        self.declarations: dict[Seat, str] = {}
        self.deals.append(
            {
                "hand": self.hand_no,
                "dealer": self.dealer,
                "dealt": [format_cards(cards) for cards in self.hidden],
            }
        )
        self._reset_turns()

    def _reset_turns(self) -> None:
        """A new hand starts with exposures from the dealer's left and no betting yet."""
        n = self.players
        self.phase = Phase.EXPOSE
        self.turn: Seat | None = self.order[0]
        self.opener: Seat = self.order[0]
        self.final_round = False
        self.round_bet = 0
        self.round_in = [0] * n
        self.bets_made = 0
        self.pending: set[Seat] = set()
        self.offer_queue: list[Seat] = []
        self.card_taken = False

    # Small facts.

    def _active(self) -> list[Seat]:
        """Seats still in the hand, from the dealer's left."""
        return [seat for seat in self.order if not self.folded[seat]]

    def _next_after(self, seat: Seat, among: set[Seat] | list[Seat]) -> Seat:
        """The first seat of ``among`` after ``seat`` going clockwise."""
        n = self.players
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if candidate in among:
                return candidate
        raise AssertionError("no seat to move to")

    def _cards(self, seat: Seat) -> list[Card]:
        return self.hidden[seat] + self.exposed[seat]

    # Phases.

    def _start_betting(self, opener: Seat) -> None:
        self.phase = Phase.BET
        self.opener = opener
        self.round_bet = 0
        self.round_in = [0] * self.players
        self.bets_made = 0
        self.pending = set(self._active())
        self.turn = opener

    def _first_opener(self) -> Seat:
        """Highest exposed card (A high, then K, Q ... 2), ties to the first from the left."""
        top = max(self.exposed[seat][0].rank for seat in self.order)
        return next(seat for seat in self.order if self.exposed[seat][0].rank == top)

    def _start_offers(self) -> None:
        self.card_taken = False
        self.offer_queue = [seat for seat in self._active() if not self.frozen[seat]]
        self._next_offer()

    def _next_offer(self) -> None:
        """Offer to the next player in the queue, or end the offer round with betting."""
        if self.offer_queue and self.stock:
            self.phase = Phase.OFFER
            self.turn = self.offer_queue.pop(0)
            return
        self.final_round = not self.card_taken or not self.stock
        self._start_betting(self._next_after(self.opener, self._active()))

    def _end_betting(self) -> None:
        if self.final_round:
            self._showdown()
        else:
            self._start_offers()

    def _showdown(self) -> None:
        """Naturals claim the pot at once; otherwise every survivor must declare."""
        if any(is_natural(self._cards(seat)) for seat in self._active()):
            self._settle(showdown=True)
            return
        self.phase = Phase.DECLARE
        self.turn = None

    def _settle(self, showdown: bool) -> None:
        """Pay the pot out, record the hand, then deal the next one or end the game."""
        survivors = self._active()
        hands = {seat: self._cards(seat) for seat in survivors}
        if showdown:
            won = split_pot(self.pot, survivors, hands, self.declarations or None)
        else:
            won = {survivors[0]: self.pot}
        net = [won.get(seat, 0) - self.committed[seat] for seat in range(self.players)]
        for seat, chips in enumerate(net):
            self.chips[seat] += chips
        shown = {str(seat): format_cards(hands[seat]) for seat in survivors} if showdown else {}
        self.last_hand = {
            "hand": self.hand_no,
            "dealer": self.dealer,
            "pot": self.pot,
            "history": self.hand_history + self._declaration_steps(),
            "showdown": shown,
            "declarations": {str(seat): d for seat, d in sorted(self.declarations.items())},
            "won": [won.get(seat, 0) for seat in range(self.players)],
            "net": net,
        }
        self.deals[-1].update(
            cards=[format_cards(self._cards(seat)) for seat in range(self.players)],
            folded=list(self.folded),
            declarations=self.last_hand["declarations"],
            net=net,
        )
        if self.hand_no + 1 < self.hand_count:
            self._start_hand()
        else:
            self.phase = Phase.OVER
            self.turn = None

    def _declaration_steps(self) -> list[list[Any]]:
        return [[seat, self.declarations[seat]] for seat in self.order if seat in self.declarations]

    # The engine interface.

    def to_act(self) -> tuple[Seat, ...]:
        if self.phase == Phase.DECLARE:
            return tuple(s for s in self._active() if s not in self.declarations)
        return () if self.turn is None else (self.turn,)

    def legal_actions(self, seat: Seat) -> list[Action]:
        if seat not in self.to_act():
            return []
        if self.phase == Phase.EXPOSE:
            return [f"expose {card}" for card in self.hidden[seat]]
        if self.phase == Phase.BET:
            if self.round_in[seat] == self.round_bet:
                return ["check", "bet"]
            can_raise = self.bets_made <= self.options["max_raises"]
            return ["fold", "call", "raise"] if can_raise else ["fold", "call"]
        if self.phase == Phase.OFFER:
            return list(_OFFER)
        return list(DECLARATIONS)

    def situation(self, seat: Seat) -> tuple[str, ...]:
        """The phase; in a betting round, whether a bet is faced and raising is still
        allowed, and whether the round is the hand's last."""
        if seat not in self.to_act():
            return ()
        if self.phase != Phase.BET:
            return (str(self.phase),)
        if self.round_in[seat] == self.round_bet:
            state = "bet-open"
        elif "raise" in self.legal_actions(seat):
            state = "bet-facing"
        else:
            state = "bet-capped"
        return (state, "bet-final") if self.final_round else (state,)

    def fallback_action(self, seat: Seat) -> Action:
        """rules.md: check if free else fold, declare 15, refuse cards, expose the first."""
        legal = self.legal_actions(seat)
        for choice in ("check", "fold", "15", "refuse"):
            if choice in legal:
                return choice
        return legal[0]

    def why_illegal(self, seat: Seat, action: Action) -> str | None:
        if self.is_over():
            return "the game is over"
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            return f"there is no seat {seat!r}; seats are 0 to {self.players - 1}"
        if seat not in self.to_act():
            return self._why_not_your_turn(seat)
        if action in self.legal_actions(seat):
            return None
        return self._why_not_this(seat, action)

    def _why_not_your_turn(self, seat: Seat) -> str:
        if self.folded[seat]:
            return f"seat {seat} has folded this hand"
        if self.phase == Phase.DECLARE:
            return f"seat {seat} has already declared; waiting for seats {list(self.to_act())}"
        return f"it is seat {self.turn}'s turn to {self._asked()}, not seat {seat}'s"

    def _why_not_this(self, seat: Seat, action: Action) -> str:
        legal = self.legal_actions(seat)
        if self.phase == Phase.EXPOSE:
            hidden = " ".join(format_cards(self.hidden[seat]))
            return f"expose one of your face-down cards ({hidden}) as 'expose Xx', not {action!r}"
        if self.phase == Phase.BET:
            owed = self.round_bet - self.round_in[seat]
            if owed and action in ("check", "bet"):
                return f"you face a bet ({owed} to call): choose one of {legal}"
            if owed and action == "raise":
                return f"the betting is capped at {self.options['max_raises']} raises a round"
            if not owed and action in ("fold", "call", "raise"):
                return "there is no bet to fold to, call or raise: check or bet"
            return f"in a betting round choose one of {legal}, not {action!r}"
        if self.phase == Phase.OFFER:
            return f"you are offered a card: 'take' or 'refuse', not {action!r}"
        return f"declare '15', '35' or 'both', not {action!r}"

    def _asked(self) -> str:
        return {
            Phase.EXPOSE: "expose a card",
            Phase.BET: "bet",
            Phase.OFFER: "take or refuse a card",
            Phase.DECLARE: "declare",
            Phase.OVER: "do nothing",
        }[self.phase]

    def public_action(self, seat: Seat, action: Action) -> Action | None:
        """A declaration stays secret until every player has declared (rules.md)."""
        return None if self.phase == Phase.DECLARE else action

    def _apply(self, seat: Seat, action: Action) -> None:
        text = str(action)
        if self.phase == Phase.DECLARE:
            self.declarations[seat] = text
            if not self.to_act():
                self._settle(showdown=True)
            return
        self.hand_history.append([seat, text])
        if self.phase == Phase.EXPOSE:
            self._expose(seat, text.split()[1])
        elif self.phase == Phase.BET:
            self._bet(seat, text)
        else:
            self._offer(seat, text == "take")

    def _expose(self, seat: Seat, card_text: str) -> None:
        card = next(c for c in self.hidden[seat] if str(c) == card_text)
        self.hidden[seat].remove(card)
        self.exposed[seat].append(card)
        if seat == self.order[-1]:
            self._start_betting(self._first_opener())
        else:
            self.turn = self.order[self.order.index(seat) + 1]

    def _bet(self, seat: Seat, action: str) -> None:
        self.pending.discard(seat)
        if action == "fold":
            self.folded[seat] = True
            if len(self._active()) == 1:
                self._settle(showdown=False)
                return
        elif action in ("call", "bet", "raise"):
            if action != "call":
                self.round_bet += self.options["bet"]
                self.bets_made += 1
                self.pending = set(self._active()) - {seat}
            owed = self.round_bet - self.round_in[seat]
            self.round_in[seat] += owed
            self.committed[seat] += owed
            self.pot += owed
        if self.pending:
            self.turn = self._next_after(seat, self.pending)
        else:
            self._end_betting()

    def _offer(self, seat: Seat, take: bool) -> None:
        if take:
            self.exposed[seat].append(self.stock.pop(0))
            self.refusals[seat] = 0
            self.card_taken = True
        else:
            self.refusals[seat] += 1
            self.frozen[seat] = self.refusals[seat] >= 2
        self._next_offer()

    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    def result(self) -> Result:
        if not self.is_over():
            raise GameError("the game is not over yet; the result comes after the last hand")
        return Result.from_scores(self.chips)

    def revealed(self) -> JSONDict:
        """Every card of every hand dealt: the three dealt, then all each seat ended with."""
        return {"deals": [dict(deal) for deal in self.deals]}

    def redeal_unseen(self, seat: Seat, rng: random.Random) -> bool:
        """Deal the other seats' face-down cards and the stock anew."""
        others = [other for other in range(self.players) if other != seat]
        dealt, moved = redeal([self.hidden[other] for other in others] + [self.stock], rng)
        for other, cards in zip(others, dealt, strict=False):
            self.hidden[other] = cards
        self.stock = dealt[-1]
        return moved

    def observation(self, seat: Seat) -> JSONDict:
        """Public table facts, plus ``seat``'s own face-down cards; no pending declaration.

        While declarations are collected, ``to_act`` lists every player still in (not just
        those yet to declare), so that nobody learns who has already answered.
        """
        declaring = self.phase == Phase.DECLARE
        return {
            "seat": seat,
            "players": self.players,
            "hand": self.hand_no,
            "hands": self.hand_count,
            "dealer": self.dealer,
            "phase": str(self.phase),
            "to_act": self._active() if declaring else list(self.to_act()),
            "asked": self._asked(),
            "hidden": format_cards(self.hidden[seat]),
            "exposed": [format_cards(cards) for cards in self.exposed],
            "pot": self.pot,
            "bets": list(self.committed),
            "round_bets": list(self.round_in) if self.phase == Phase.BET else [0] * self.players,
            "to_call": self.round_bet - self.round_in[seat] if self.phase == Phase.BET else 0,
            "bet_size": self.options["bet"],
            "raises_left": self.options["max_raises"] - max(0, self.bets_made - 1),
            "final_round": self.final_round,
            "stock": len(self.stock),
            "folded": list(self.folded),
            "frozen": list(self.frozen),
            "refusals": list(self.refusals),
            "chips": list(self.chips),
            "history": [list(step) for step in self.hand_history],
            "last_hand": _copy_hand(self.last_hand),
        }


def _copy_hand(hand: JSONDict | None) -> JSONDict | None:
    """A copy of a hand's record (``_settle``'s form) sharing nothing mutable with it: what
    ``copy.deepcopy`` gives, for a fraction of its cost (it ran on every move)."""
    if hand is None:
        return None
    return {
        **hand,
        "history": [list(step) for step in hand["history"]],
        "showdown": {seat: list(cards) for seat, cards in hand["showdown"].items()},
        "declarations": dict(hand["declarations"]),
        "won": list(hand["won"]),
        "net": list(hand["net"]),
    }
