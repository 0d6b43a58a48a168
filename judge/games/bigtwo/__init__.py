"""Big Two (seed 004, rules.md "Big Two"): shed your cards first in tricks of equal size.

A game is one or more deals (option ``deals``). Deal ``k`` is shuffled by the seed and
``("deal", k)`` and dealt one card at a time starting at seat ``k`` (so seats take turns at
every position). Four players get 13 cards each; three get 17, and the last card goes to
the holder of 3♦ (or of 4♦ when it is the 3♦); two get 13 each and 26 stay unused.

The holder of the lowest card held leads, and that first play must contain it. Play goes to
the next seat (seat + 1). A trick keeps the size of its lead; each play must beat the last
one (combos). Passing is always allowed when following and does not stop a player
from playing later in the trick. When every other player has passed in a row, the last to
play leads anything. A deal ends the moment a hand is empty: each loser pays a point per
card left (doubled from ``double_at`` cards, tripled from ``triple_at``), the winner
collects it all. The game's result is the total over its deals.

Actions: ``"pass"``, or a play as a list of card texts, low to high in Big Two order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from judge.cards import make_deck
from judge.engine import Action, Game, GameError, JSONDict, Result, Seat, redeal
from judge.games.bigtwo.combos import (
    CARD_ID,
    CARD_TEXT,
    LOWEST_CARD,
    PLAY_SIZES,
    STRAIGHTS_OPTIONS,
    Combo,
    card_id,
    classify,
    plays,
    texts,
)
from judge.options import choice_option, int_option

PASS = "pass"
#: Cards dealt to each player, by number of players (three players: one more to 3♦'s holder).
HAND_SIZE = {2: 13, 3: 17, 4: 13}
_FOUR_DIAMONDS = CARD_ID["4d"]
_KIND_WORDS = {2: "a pair (two cards of one rank)", 3: "a triple (three cards of one rank)"}
#: A trick's size -> its ``situations`` word ("follow-pair").
_FOLLOW_WORDS = {1: "single", 2: "pair", 3: "triple", 5: "five"}
_FIVE_WORDS = (
    "a five-card hand (straight, flush, full house, four of a kind with any fifth card, "
    "or straight flush)"
)


class BigTwo(Game):
    """The Big Two engine: 2 to 4 players, one or more deals."""

    name = "bigtwo"
    title = "Big Two"
    min_players = 2
    max_players = 4
    default_players = 4
    option_schema = (
        choice_option(
            "straights", "big-two", tuple(STRAIGHTS_OPTIONS), "which five-card runs are straights"
        ),
        int_option("deals", 1, 1, 20, "deals in one game, seats rotating"),
        int_option("double_at", 10, 1, 17, "cards left from which a loser pays double"),
        int_option("triple_at", 13, 1, 17, "cards left from which a loser pays triple"),
    )
    private_keys = ("hand",)
    zero_sum = True
    #: The most moves a game takes in ordinary play (per deal or hand where it has them).
    moves_per_game = 80
    repeat_options = ("deals",)
    demo_format: ClassVar[Mapping[str, Any]] = {"table_size": 3, "games_per_pairing": 2}
    renderer = "bigtwo"
    situations: ClassVar[Mapping[str, str]] = {
        "lead": "leading a trick (passing not allowed)",
        "first-lead": "leading a deal's first trick (with its lowest card)",
        "follow-single": "following a single",
        "follow-pair": "following a pair",
        "follow-triple": "following a triple",
        "follow-five": "following a five-card hand",
        "only-pass": 'following with no play that beats the trick (only "pass")',
    }

    # Setting up, dealing and scoring.

    def _setup(self) -> None:
        self.straights: str = self.options["straights"]
        self.scores = [0] * self.players
        self.deal_scores: list[list[int]] = []
        self.dealt: list[list[list[int]]] = []
        self.left_at_end: list[list[list[int]]] = []
        self.over = False
        self._deal(0)

    @classmethod
    def _check_together(cls, options: Mapping[str, Any]) -> None:
        if options["double_at"] > options["triple_at"]:
            raise GameError(
                f"bigtwo option double_at={options['double_at']!r} must not exceed "
                f"triple_at={options['triple_at']!r}"
            )

    def _deal(self, number: int) -> None:
        """Shuffle and deal deal ``number``; the holder of the lowest card held leads."""
        deck = [card_id(c) for c in self.shuffle(make_deck(), "deal", number)]
        n = self.players
        dealt = HAND_SIZE[n] * n
        hands: list[list[int]] = [[] for _ in range(n)]
        for i, c in enumerate(deck[:dealt]):
            hands[(number + i) % n].append(c)
        self.unused = sorted(deck[dealt:])
        if n == 3:  # the 52nd card goes to 3♦'s holder, or to 4♦'s if it is the 3♦
            extra = self.unused.pop()
            wanted = _FOUR_DIAMONDS if extra == LOWEST_CARD else LOWEST_CARD
            next(hand for hand in hands if wanted in hand).append(extra)
        self.hands = [sorted(hand) for hand in hands]
        self.dealt.append([list(hand) for hand in self.hands])
        self.deal_number = number
        lowest = min(min(hand) for hand in self.hands)
        self.turn: Seat = next(s for s, hand in enumerate(self.hands) if lowest in hand)
        self.must_contain: int | None = lowest
        self.trick: Combo | None = None
        self.trick_seat: Seat | None = None
        self.leader: Seat = self.turn
        self.plays: list[tuple[Seat, Combo | None]] = []

    def _end_deal(self, winner: Seat) -> None:
        """Score the deal that ``winner`` just won, then deal the next or end the game."""
        payments = [self._payment(len(hand)) for hand in self.hands]
        deal = [-p for p in payments]
        deal[winner] = sum(payments)
        self.deal_scores.append(deal)
        self.scores = [total + won for total, won in zip(self.scores, deal, strict=True)]
        self.left_at_end.append([list(hand) for hand in self.hands])
        if self.deal_number + 1 < self.options["deals"]:
            self._deal(self.deal_number + 1)
        else:
            self.over = True

    def _payment(self, cards_left: int) -> int:
        """What a loser pays: a point a card, doubled or tripled at the thresholds."""
        if cards_left >= self.options["triple_at"]:
            return 3 * cards_left
        if cards_left >= self.options["double_at"]:
            return 2 * cards_left
        return cards_left

    # The engine interface.

    def to_act(self) -> tuple[Seat, ...]:
        return () if self.over else (self.turn,)

    def legal_actions(self, seat: Seat) -> list[Action]:
        """``"pass"`` (when following) then every allowed play, weakest first."""
        if self.over or seat != self.turn:
            return []
        found: list[Action] = [] if self.trick is None else [PASS]
        hand = self.hands[seat]
        found.extend(c.texts() for c in plays(hand, self.trick, self.straights, self.must_contain))
        return found

    def situation(self, seat: Seat) -> tuple[str, ...]:
        """Leading (a deal's first lead too), or following a trick of its size; and
        following with nothing but "pass" to play."""
        if self.over or seat != self.turn:
            return ()
        if self.trick is None:
            return ("lead", "first-lead") if self.must_contain is not None else ("lead",)
        follow = f"follow-{_FOLLOW_WORDS[len(self.trick.cards)]}"
        if plays(self.hands[seat], self.trick, self.straights):
            return (follow,)
        return (follow, "only-pass")

    def fallback_action(self, seat: Seat) -> Action:
        """Pass; when leading, the lowest single (the lowest card on a deal's first lead)."""
        if self.trick is not None:
            return PASS
        return [CARD_TEXT[self.hands[seat][0]]]

    def why_illegal(self, seat: Seat, action: Action) -> str | None:
        """Why ``action`` is refused, in Big Two terms; None if it is allowed."""
        if self.over:
            return "the game is over"
        if seat != self.turn:
            return f"it is not seat {seat}'s turn (seat {self.turn} is to play)"
        if action == PASS:
            if self.trick is None:
                return "you lead this trick, so you must play; you may pass only when following"
            return None
        if not isinstance(action, list) or not all(isinstance(t, str) for t in action):
            return (
                f'{action!r} is not an action: send "pass" or a list of card texts such as '
                '["3d", "3c"]'
            )
        return self._why_play_illegal(seat, action)

    def _why_play_illegal(self, seat: Seat, action: list[str]) -> str | None:
        unknown = [t for t in action if t not in CARD_ID]
        if unknown:
            return f"{unknown[0]!r} is not a card of the 52-card pack (write e.g. 3d, Tc, As, 2s)"
        ids = [CARD_ID[t] for t in action]
        if len(set(ids)) != len(ids):
            return f"{action} names a card twice"
        missing = [t for t in action if CARD_ID[t] not in self.hands[seat]]
        if missing:
            return f"you do not hold {missing}"
        combo = classify(ids, self.straights)
        if combo is None:
            return self._why_not_a_combination(action)
        if self.must_contain is not None and self.must_contain not in ids:
            lowest = CARD_TEXT[self.must_contain]
            return f"the first play of the deal must contain {lowest}, the lowest card held"
        if self.trick is not None and not combo.beats(self.trick):
            return self._why_not_beating(combo, self.trick)
        if action != combo.texts():
            return f"list the cards low to high in Big Two order: {combo.texts()}"
        return None

    def _why_not_a_combination(self, action: list[str]) -> str:
        size = len(action)
        if size not in PLAY_SIZES:
            return (
                f"{size} cards are no combination: play 1, 2, 3 or 5 cards "
                "(four of a kind only with a fifth card)"
            )
        return f"{action} is not {_KIND_WORDS.get(size, _FIVE_WORDS)}"

    def _why_not_beating(self, combo: Combo, trick: Combo) -> str:
        size = len(trick.cards)
        shown = f"{trick.texts()} ({trick.kind.label})"
        if len(combo.cards) != size:
            return f"the trick is {shown}: play {size} card(s) that beat it, or pass"
        return f"{combo.texts()} ({combo.kind.label}) does not beat {shown}"

    def _apply(self, seat: Seat, action: Action) -> None:
        nxt = (seat + 1) % self.players
        if action == PASS:
            self.plays.append((seat, None))
            if nxt == self.trick_seat:  # everyone else passed: the last to play leads
                self.trick, self.trick_seat, self.leader = None, None, nxt
            self.turn = nxt
            return
        combo = classify([CARD_ID[t] for t in action], self.straights)
        assert combo is not None  # why_illegal has checked it
        played = set(combo.cards)
        self.hands[seat] = [c for c in self.hands[seat] if c not in played]
        self.plays.append((seat, combo))
        self.trick, self.trick_seat, self.must_contain = combo, seat, None
        if self.hands[seat]:
            self.turn = nxt
        else:
            self._end_deal(seat)

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise GameError("the Big Two game is not over yet; it has no result")
        return Result.from_scores(self.scores)

    def redeal_unseen(self, seat: Seat, rng: random.Random) -> bool:
        """Deal the others' hands and the unused cards anew, keeping every count."""
        others = [s for s in range(self.players) if s != seat]
        before = [self.hands[s] for s in others] + [self.unused]
        dealt, _ = redeal(before, rng)
        after = [sorted(pile) for pile in dealt]
        for s, hand in zip(others, after, strict=False):
            self.hands[s] = hand
        self.unused = after[-1]
        return after != [sorted(pile) for pile in before]

    def observation(self, seat: Seat) -> JSONDict:
        """What ``seat`` sees: its own hand, the public table, never another seat's cards."""
        trick = None
        if self.trick is not None:
            trick = {
                "cards": self.trick.texts(),
                "kind": self.trick.kind.label,
                "seat": self.trick_seat,
            }
        return {
            "seat": seat,
            "players": self.players,
            "straights": self.straights,
            "deal": self.deal_number,
            "deals": self.options["deals"],
            "hand": texts(self.hands[seat]),
            "counts": [len(hand) for hand in self.hands],
            "to_act": None if self.over else self.turn,
            "leader": self.leader,
            "trick": trick,
            "must_contain": None if self.must_contain is None else CARD_TEXT[self.must_contain],
            "plays": [[s, PASS if c is None else c.texts()] for s, c in self.plays],
            "scores": list(self.scores),
            "deal_scores": [list(deal) for deal in self.deal_scores],
        }

    def revealed(self) -> JSONDict:
        """Every finished deal's hands as dealt and as left at its end."""
        return {
            "deals": [
                {
                    "dealt": [texts(hand) for hand in dealt],
                    "left": [texts(hand) for hand in left],
                    "scores": list(scores),
                }
                for dealt, left, scores in zip(
                    self.dealt, self.left_at_end, self.deal_scores, strict=False
                )
            ]
        }
