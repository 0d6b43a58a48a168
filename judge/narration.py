"""A replayed game told in words: what ended each hand or deal, and who won and why.

The words of each game are the game's own (``narration.py`` in its package: ``events``
and ``outcome``); this module holds what every game shares and tells a game without a
narration generically. Everything reads the *public* part of the engine's observations (no
seat's private keys) and, at the very end, what the engine reveals once the game is over,
which every view of a finished replay already holds. So the words never tell a seat more
than the frames it is sent.

A line is a list of parts: text, or ``{"cards": [...]}`` drawn as small cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge import games
from judge.engine import Game, JSONDict

Part = str | dict[str, list[str]]
Line = list[Part]
#: (step of the action, its seat, public view before it, public view after it, names).
EventMaker = Callable[[int, int, JSONDict, JSONDict, Sequence[str]], list[Line]]
#: (final public view, result, revealed cards, names, variant) -> lines.
OutcomeMaker = Callable[[JSONDict, JSONDict, JSONDict, Sequence[str], str], list[Line]]


def public_view(game: Game) -> JSONDict:
    """What every seat sees: an observation without the private keys (its seat's cards)."""
    seen = game.observation(0)
    return {key: value for key, value in seen.items() if key not in game.private_keys}


def seat_names(bots: Sequence[str], seating: Sequence[int]) -> list[str]:
    """Each seat's bot name; a name seated twice gets its seat number (1-based) added."""
    names = [bots[bot] if 0 <= bot < len(bots) else f"bot {bot + 1}" for bot in seating]
    return [
        f"{name} (seat {seat + 1})" if names.count(name) > 1 else name
        for seat, name in enumerate(names)
    ]


def _makers(game: str) -> tuple[EventMaker | None, OutcomeMaker]:
    """The game's own event and outcome tellers (generic ones where it has none)."""
    module = games.narration(game) if game in games.GAMES else None
    events = getattr(module, "events", None)
    outcome = getattr(module, "outcome", None) or generic_outcome
    return events, outcome


@dataclass
class Narration:
    """The events of one game (``step``: the frame from which each is true) and its outcome."""

    game: str
    names: Sequence[str]
    events: list[JSONDict] = field(default_factory=list)
    before: JSONDict | None = None

    def start(self, public: JSONDict) -> None:
        self.before = public

    def after(self, step: int, seat: int, public: JSONDict) -> None:
        """Note what action ``step`` (0-based) of ``seat`` ended; it shows from ``step + 1``."""
        maker, _ = _makers(self.game)
        if maker is not None and self.before is not None:
            for line in maker(step, seat, self.before, public, self.names):
                self.events.append({"step": step + 1, "say": line})
        self.before = public

    def outcome(self, result: JSONDict, revealed: JSONDict, variant: str) -> list[Line]:
        _, maker = _makers(self.game)
        return maker(self.before or {}, result, revealed, self.names, variant)


def winners_line(result: JSONDict, names: Sequence[str], unit: str) -> Line:
    """Who won (places are 1 for the best; ties share) and every seat's score."""
    scores, places = result.get("scores", []), result.get("places", [])
    first = [names[seat] for seat, place in enumerate(places) if place == 1]
    table = ", ".join(f"{names[seat]}: {number(s)}" for seat, s in enumerate(scores))
    if len(first) == len(places) and len(places) > 1:
        return [f"A draw: every bot has the same {unit} ({table})."]
    who = " and ".join(first) + (" share first place" if len(first) > 1 else " won")
    return [f"{who}. {unit.capitalize()}: {table}."]


def generic_outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    """Who won and every score: what any game's result says."""
    return [winners_line(result, names, "score")]


def number(value: Any) -> str:
    """A score as people write it (2.0 is 2)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
