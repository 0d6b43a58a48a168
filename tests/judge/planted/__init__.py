"""Games with one planted rule bug each, that the conformance suite has never seen.

tests/judge/test_conformance_catches.py registers them (``JUDGE_GAME_PLUGINS``, as a game
from outside the repository would be) and runs tests/judge/test_conformance.py against
them: each must fail with the message that names its bug, and only with that one. Each is
a small variant of an existing game, otherwise correct, so the test that catches it is the
one written for that kind of bug:

- ``laxoceans``: Oceans 11 whose ``why_illegal`` forgot that conceding is refused when the
  opponent needs one more win (its ``legal_actions`` knows); caught by
  ``test_every_action_outside_the_legal_list_is_refused_with_a_reason``.
- ``turnless``: High Card whose ``why_illegal`` checks the word but not whose turn it is;
  caught by the same test (and the positions' out-of-turn check).
- ``stakes``: High Card with a ``stake`` option the scoring never reads; caught by
  ``test_every_option_changes_what_the_seats_see_or_the_outcome``.
- ``endless``: High Card whose last round deals another instead of ending the game; caught
  by every test that plays a game, each capped (before the cap, a match test hung).
"""

from __future__ import annotations

from judge.engine import Action, Seat
from judge.games.oceans11 import CONCEDE, Oceans11
from judge.options import int_option
from tests.judge.highcard import FOLD, PLAY, HighCard


class LaxOceans(Oceans11):
    """Oceans 11 that lets the weaker player concede when the opponent needs one more win."""

    name = "laxoceans"
    title = "Oceans 11 (lax about conceding)"
    renderer = ""
    demo_duel = None

    def why_illegal(self, seat: Seat, action: Action) -> str | None:
        if action == CONCEDE and seat in self.to_act():
            return None  # the bug: may_concede is not asked
        return super().why_illegal(seat, action)


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
