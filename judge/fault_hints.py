"""Fault reports that say how to fix: the legal action a bot most likely meant, and why.

An illegal answer is rarely a bad choice; it is usually a slip of form: a card sent as a
string where a play is a list (``"4s"`` for ``["4s"]``), a wrong case (``"Check"``), the
cards of a play in another order, a part left out (``"expose"`` for ``"expose 7h"``), an
index sent as a string (``"0"``). ``nearest(sent, legal)`` tries each such cause in turn
and names the legal action it would give, so the referee's fault message reads
"'4s' is not one of the legal actions; did you mean ["4s"]? (a play is a list ...)".
Plain Python (no game, no Django): the protocol and the referee call it with the legal
list they sent.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from judge.engine import Action, Game

#: How alike (difflib's ratio) a legal action must be to be offered when no cause fits.
CLOSE_ENOUGH: Final = 0.6
#: Legal lists longer than this, or answers longer than FUZZY_TEXT characters, get only
#: the cheap rules, not the fuzzy match (difflib is quadratic in the text).
FUZZY_LIMIT: Final = 2000
FUZZY_TEXT: Final = 200
#: The cause of a hint that is only the closest legal action, not a slip of form.
CLOSEST: Final = "the closest legal action"
#: How much of a game's own reason a fault keeps.
RULES_CHARS: Final = 300


@dataclass(frozen=True)
class Hint:
    """The legal action the bot most likely meant, and the likely cause of the slip."""

    meant: Action
    cause: str

    def text(self) -> str:
        return f"did you mean {as_json(self.meant)}? ({self.cause})"


def as_json(value: Any) -> str:
    """An action as the bot should write it: JSON, not Python's repr."""
    return json.dumps(value, ensure_ascii=False)


def nearest(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """The first cause that turns ``sent`` into a legal action, or the closest legal
    action (None when nothing is near)."""
    for rule in RULES:
        hint = rule(sent, legal)
        if hint is not None:
            return hint
    return None


def guarded(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """``nearest``, or None when the answer is too deeply nested to write back: a hint
    never makes a fault fail."""
    try:
        return nearest(sent, legal)
    except (RecursionError, ValueError):
        return None


def written(hint: Hint | None) -> str:
    """``"; did you mean ...? (cause)"`` for a fault message, or "" without a hint."""
    return "" if hint is None else f"; {hint.text()}"


def suffix(sent: Any, legal: Sequence[Action]) -> str:
    """``written(guarded(sent, legal))``: the hint as a fault message ends with it."""
    return written(guarded(sent, legal))


def is_sure(hint: Hint | None) -> bool:
    """Whether a hint names a slip of form (not merely the closest legal action)."""
    return hint is not None and hint.cause != CLOSEST


def rules_reason(game: Game, seat: int, sent: Any) -> str:
    """The game's own reason for refusing ``sent`` (``Game.why_illegal``: "['3c'] (single)
    does not beat ['7c', '7s'] (pair)"), as "; the rules: ...", or "" when it says no more
    than that the action is not legal. An engine that fails to explain is ignored: the
    fault stands without it."""
    try:
        reason = game.why_illegal(seat, sent)
    except Exception:
        return ""
    if not reason or "is not one of the legal actions" in reason:
        return ""
    return f"; the rules: {reason[:RULES_CHARS]}"


def _first(legal: Sequence[Action], matches: Callable[[Action], bool]) -> Action | None:
    return next((action for action in legal if matches(action)), None)


def _is_action(value: Any) -> bool:
    """A string, or a list of strings (the shapes an action may have)."""
    if isinstance(value, str):
        return True
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


def _fold(action: Action) -> Any:
    return action.casefold() if isinstance(action, str) else [t.casefold() for t in action]


def _string_for_list(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """A play written as a string: one card, or several separated by spaces or commas."""
    if not isinstance(sent, str) or not sent.strip():
        return None
    words = [w for w in re.split(r"[\s,]+", sent.strip()) if w]
    meant = _first(legal, lambda a: isinstance(a, list) and _fold(a) == _fold(words))
    meant = meant or _first(
        legal, lambda a: isinstance(a, list) and sorted(_fold(a)) == sorted(_fold(words))
    )
    if meant is None:
        return None
    return Hint(meant, "a play is a list of cards, even of one: send a JSON list of strings")


def _list_for_string(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """A string action wrapped in a list (``["deal"]``)."""
    if not isinstance(sent, list) or len(sent) != 1 or not isinstance(sent[0], str):
        return None
    meant = _first(legal, lambda a: isinstance(a, str) and a.casefold() == sent[0].casefold())
    if meant is None:
        return None
    return Hint(meant, "this action is a string, not a list")


def _case(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """The right words in the wrong case (``"Check"``, ``["4S"]``): names are case-sensitive."""
    if not _is_action(sent):
        return None
    meant = _first(legal, lambda a: type(a) is type(sent) and _fold(a) == _fold(sent))
    if meant is None:
        return None
    return Hint(meant, "a wrong case: actions and cards are written exactly as in legal")


def _spaces(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """Spaces around or doubled inside an action (``"check\\n"``, ``"expose  7h"``)."""
    if not isinstance(sent, str):
        return None
    squeezed = " ".join(sent.split())
    if squeezed == sent or squeezed not in legal:
        return None
    return Hint(squeezed, "extra spaces: send the action exactly as legal writes it")


def _order(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """A play's cards in another order than the legal list writes them."""
    if not isinstance(sent, list) or not _is_action(sent):
        return None
    key = sorted(_fold(sent))
    meant = _first(legal, lambda a: isinstance(a, list) and sorted(_fold(a)) == key)
    if meant is None:
        return None
    return Hint(meant, "the cards in another order: send them in the order legal lists them")


def _missing_part(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """A part left out: ``"expose"`` for ``"expose 7h"``, a play missing a card."""
    if isinstance(sent, str) and sent.strip():
        word = sent.strip().casefold()
        meant = _first(
            legal, lambda a: isinstance(a, str) and a.casefold().split()[:1] == [word] and a != sent
        )
        if meant is not None:
            return Hint(meant, f"a missing part: {as_json(sent)} needs what follows it in legal")
    if isinstance(sent, list) and sent and _is_action(sent):
        have = set(_fold(sent))
        meant = _first(legal, lambda a: isinstance(a, list) and have < set(_fold(a)))
        if meant is not None:
            return Hint(meant, "a missing card: this play needs every card of a legal play")
    return None


def _index_as_string(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """An index written as a string (``"0"``) where no legal action is that string."""
    if not isinstance(sent, str) or not sent.strip().isdigit():
        return None
    index = int(sent.strip())
    if index >= len(legal):
        return None
    return Hint(legal[index], f"an index is a JSON number: send {index}, not {as_json(sent)}")


def _closest(sent: Any, legal: Sequence[Action]) -> Hint | None:
    """No cause fits: the legal action whose JSON text is closest to what was sent."""
    text = as_json(sent)
    if not legal or len(legal) > FUZZY_LIMIT or len(text) > FUZZY_TEXT:
        return None
    texts = {as_json(action): action for action in legal}
    found = difflib.get_close_matches(text, list(texts), n=1, cutoff=CLOSE_ENOUGH)
    if not found:
        return None
    return Hint(texts[found[0]], CLOSEST)


RULES: Final = (
    _list_for_string,
    _string_for_list,
    _case,
    _spaces,
    _order,
    _missing_part,
    _index_as_string,
    _closest,
)


def index_hint(index: int, legal: Sequence[Action]) -> str:
    """Why an index missed the legal list: counted from 1, or a negative one."""
    if not legal:
        return ""
    if index == len(legal):
        return f"; indexes count from 0: the last is {len(legal) - 1} ({as_json(legal[-1])})"
    if index < 0:
        return f"; indexes count from 0 to {len(legal) - 1}, none is negative"
    return f"; this turn offered {len(legal)} actions (indexes 0 to {len(legal) - 1})"


def misplaced_key(message: dict[str, Any]) -> str:
    """For an action message without "action": the key the action was sent under."""
    others = [key for key in message if key not in ("type", "action")]
    for key in others:
        value = message[key]
        if isinstance(value, str | int | list) and not isinstance(value, bool):
            return (
                f'; did you mean {{"type": "action", "action": {as_json(value)}}}? '
                f'(the action was under "{key}", a missing field "action")'
            )
    return '; send {"type": "action", "action": ...} (a missing field "action")'
