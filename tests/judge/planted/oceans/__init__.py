"""An Oceans 11 with a planted rule bug (tests/judge/planted/): its house bots and words
are Oceans 11's, so only the bug can fail the conformance suite."""

from __future__ import annotations

from judge.engine import Action, Seat
from judge.games.oceans11 import CONCEDE, Oceans11


class LaxOceans(Oceans11):
    """Oceans 11 that lets the weaker player concede when the opponent needs one more win."""

    name = "laxoceans"
    title = "Oceans 11 (lax about conceding)"
    renderer = ""

    def why_illegal(self, seat: Seat, action: Action) -> str | None:
        if action == CONCEDE and seat in self.to_act():
            return None  # the bug: may_concede is not asked
        return super().why_illegal(seat, action)
