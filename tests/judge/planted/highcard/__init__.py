"""High Card with a planted rule bug each (tests/judge/planted/): their house bots and
words are High Card's, so only the bug can fail the conformance suite."""

from __future__ import annotations

from judge.engine import Action, Seat
from judge.options import int_option
from tests.judge.highcard import FOLD, PLAY, HighCard


class Turnless(HighCard):
    """High Card that takes "play" or "fold" from either seat, whoever is to act."""

    name = "turnless"
    title = "High Card (whoever speaks)"
    renderer = ""

    def why_illegal(self, seat: Seat, action: Action) -> str | None:
        if self.is_over():
            return "the game is over"
        if action not in (PLAY, FOLD):  # the bug: whose turn it is goes unchecked
            return f"say {PLAY!r} or {FOLD!r}, not {action!r}"
        return None


class Stakes(HighCard):
    """High Card with a ``stake`` option (points a shown round is worth) that is ignored."""

    name = "stakes"
    title = "High Card with stakes"
    renderer = ""
    option_schema = (
        *HighCard.option_schema,
        int_option("stake", 2, 1, 9, "points a round decided by the cards is worth"),
    )
    # The bug: _apply still settles a shown round for 2 points, never self.options["stake"].


class Endless(HighCard):
    """High Card whose last round, once settled, deals another: it never ends."""

    name = "endless"
    title = "High Card without end"
    renderer = ""

    def _settle(self, winner: Seat | None, points: int, shown: bool) -> None:
        super()._settle(winner, points, shown)
        if self.over:  # the bug: the end of the last round deals again
            self.over = False
            self._deal()
