"""Protocol v1: the JSON lines between the referee and a bot (see docs/protocol.md).

The judge writes one JSON object per line on the bot's standard input; the bot answers
with one JSON object per line on its standard output. Messages from the judge:

- ``hello``: the bot's seat in the first game, the game, variant, options, players,
  number of games and the time control; the bot answers ``{"type": "ready"}``.
- ``act``: the full observation of the seat, the legal actions and the time left; the bot
  answers ``{"type": "action", "action": A}`` where A equals one of the legal actions or
  is its index in the list.
- ``game_over``: the game's result and what it reveals; no answer.
- ``match_over``: the match result; no answer, and the bot must exit.

Every message type has a JSON Schema in judge/schemas/ (the tests validate against them);
this module checks bot answers by hand, so judge/ needs nothing beyond the standard library.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from judge import fault_hints
from judge.engine import Action, JSONDict

VERSION: Final = 1


class FaultKind(StrEnum):
    """Every kind of fault a bot can earn, defined once (records store the string)."""

    #: A bot's answer (this module).
    NOT_UTF8 = "not_utf8"
    NOT_JSON = "not_json"
    BAD_MESSAGE = "bad_message"
    ILLEGAL_ACTION = "illegal_action"
    #: The channel (the referee).
    TIMEOUT = "timeout"
    CLOSED = "closed"
    LINE_TOO_LONG = "line_too_long"
    CHANNEL_ERROR = "channel_error"


NOT_UTF8: Final = FaultKind.NOT_UTF8
NOT_JSON: Final = FaultKind.NOT_JSON
BAD_MESSAGE: Final = FaultKind.BAD_MESSAGE
ILLEGAL_ACTION: Final = FaultKind.ILLEGAL_ACTION


class BadAnswer(ValueError):
    """A bot's line that cannot be taken as its answer; ``kind`` names the fault.

    For an action that is not legal, ``sent`` is what the bot sent and ``hint`` the slip
    of form it most likely made (judge.fault_hints; None: no sure one), so the referee may
    add the game's own reason when the form does not explain it."""

    def __init__(
        self,
        kind: FaultKind,
        message: str,
        sent: Any = None,
        hint: fault_hints.Hint | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.sent = sent
        self.hint = hint


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


#: One encoder and one decoder for every message: ``json.dumps`` and ``json.loads`` with
#: options build a new one per call, which cost more than decoding a bot's answer
#: (bench/engines/referee.py measures it). The encoder does not look for circular
#: references (a set of every list's and object's id: a quarter of a Big Two ``act``'s
#: 35 us): messages are built from an engine's fresh values, and one that held itself
#: would still fail, as a RecursionError.
_ENCODER: Final = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, allow_nan=False, check_circular=False
)
_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a line of compact UTF-8 JSON, without the newline."""
    return _ENCODER.encode(message).encode("utf-8")


def decode(line: bytes) -> Any:
    """The JSON value of a line, or BadAnswer (not_utf8 or not_json) saying what is wrong."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        reason = f"the line is not UTF-8 ({error.reason} at byte {error.start})"
        raise BadAnswer(NOT_UTF8, reason) from None
    try:
        if text.startswith("\ufeff"):  # as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODER.decode(text)
    except (ValueError, RecursionError) as error:
        raise BadAnswer(NOT_JSON, f"the line is not one JSON value ({error})") from None


def _object_of_type(value: Any, expected: str, keys: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadAnswer(BAD_MESSAGE, f"expected a JSON object, got {type(value).__name__}")
    if value.get("type") != expected:
        raise BadAnswer(BAD_MESSAGE, f'expected "type": "{expected}", got {value.get("type")!r}')
    extra = sorted(set(value) - keys)
    if extra:
        raise BadAnswer(BAD_MESSAGE, f"unexpected keys {extra} in a {expected} message")
    return value


def parse_ready(line: bytes) -> None:
    """Check the bot's answer to ``hello``: exactly ``{"type": "ready"}``."""
    _object_of_type(decode(line), "ready", {"type"})


def _is_action_shape(value: Any) -> bool:
    if isinstance(value, str):
        return True
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def parse_action(line: bytes, legal: Sequence[Action]) -> Action:
    """The legal action a bot's answer names (by value or by index), or BadAnswer."""
    value = decode(line)
    if isinstance(value, dict) and value.get("type") == "action" and "action" not in value:
        reason = 'an action message needs the key "action"' + fault_hints.misplaced_key(value)
        raise BadAnswer(BAD_MESSAGE, reason)
    message = _object_of_type(value, "action", {"type", "action"})
    chosen = message["action"]
    if isinstance(chosen, int) and not isinstance(chosen, bool):
        if not 0 <= chosen < len(legal):
            raise BadAnswer(
                ILLEGAL_ACTION,
                f"index {chosen} is outside the legal list of {len(legal)}"
                + fault_hints.index_hint(chosen, legal),
            )
        return legal[chosen]
    if not _is_action_shape(chosen):
        raise BadAnswer(
            BAD_MESSAGE,
            "an action is a string, a list of strings, or an index into the legal list"
            + fault_hints.suffix(chosen, legal),
        )
    try:
        return legal[legal.index(chosen)]  # one scan of the list, not two
    except ValueError:
        hint = fault_hints.guarded(chosen, legal)
        said = f"{chosen!r} is not one of the legal actions"
        raise BadAnswer(ILLEGAL_ACTION, said + fault_hints.written(hint), chosen, hint) from None


# Messages from the judge.


def hello(
    *,
    bot: int,
    seat: int,
    game: str,
    variant: str,
    options: Mapping[str, Any],
    players: int,
    games: int,
    time: Mapping[str, float],
) -> JSONDict:
    """The greeting: who the bot is at this table and the rules of the match."""
    return {
        "type": "hello",
        "protocol": VERSION,
        "bot": bot,
        "seat": seat,
        "game": game,
        "variant": variant,
        "options": dict(options),
        "players": players,
        "games": games,
        "time": dict(time),
    }


def act(
    *,
    game: int,
    move: int,
    seat: int,
    observation: JSONDict,
    legal: Sequence[Action],
    move_s: float,
    bank_s: float,
) -> JSONDict:
    """A request to act: everything the seat may see, what it may do, and its clock."""
    return {
        "type": "act",
        "game": game,
        "move": move,
        "seat": seat,
        "observation": observation,
        "legal": list(legal),
        "time": {"move_s": move_s, "bank_s": round(max(bank_s, 0.0), 6)},
    }


def game_over(
    *, game: int, seat: int, scores: Sequence[float], places: Sequence[int], revealed: JSONDict
) -> JSONDict:
    """The end of one game: every seat's score and place, and every card it reveals."""
    return {
        "type": "game_over",
        "game": game,
        "seat": seat,
        "scores": list(scores),
        "places": list(places),
        "revealed": revealed,
    }


def match_over(*, bot: int, scores: Sequence[float], places: Sequence[int]) -> JSONDict:
    """The end of the match: each bot's total and place (indexed by bot, not seat)."""
    return {"type": "match_over", "bot": bot, "scores": list(scores), "places": list(places)}


def ready() -> JSONDict:
    """A bot's answer to hello."""
    return {"type": "ready"}


def action(chosen: Action | int) -> JSONDict:
    """A bot's answer to act."""
    return {"type": "action", "action": chosen}
