"""botkit: the small helper for Python bots speaking the judge's protocol v1.

Standard library only, and alone in its folder: bots get this folder on PYTHONPATH
(the sandbox image carries it), so a bot just writes ``import botkit``::

    import botkit

    def choose(observation, legal):
        return legal[0]          # or an index: return 0

    botkit.run(choose)

``run`` answers ``hello`` with ``ready``, calls ``choose`` for every ``act`` and writes the
answer, and returns at ``match_over``. For more control pass an object with any of the
methods ``hello(message)``, ``act(observation, legal, message)``,
``game_over(message)`` and ``match_over(message)``. Write logs to standard error, never
to standard output (that is the protocol's channel).
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

__all__ = ["read", "run", "send"]


def send(message: dict[str, Any], out: IO[str] | None = None) -> None:
    """Write one message as a line and flush it."""
    stream = out or sys.stdout
    stream.write(json.dumps(message, separators=(",", ":")) + "\n")
    stream.flush()


def read(source: IO[str] | None = None) -> dict[str, Any] | None:
    """The next message from the judge, or None when the input has ended."""
    line = (source or sys.stdin).readline()
    if not line:
        return None
    message: dict[str, Any] = json.loads(line)
    return message


def _act(bot: Any, message: dict[str, Any]) -> Any:
    if hasattr(bot, "act"):
        return bot.act(message["observation"], message["legal"], message)
    return bot(message["observation"], message["legal"])


def run(bot: Any, source: IO[str] | None = None, out: IO[str] | None = None) -> None:
    """Play a whole match with ``bot`` (a function or an object, see the module docstring)."""
    while True:
        message = read(source)
        if message is None:
            return
        kind = message.get("type")
        if kind == "act":
            send({"type": "action", "action": _act(bot, message)}, out)
            continue
        handler = getattr(bot, str(kind), None)
        if callable(handler) and kind in ("hello", "game_over", "match_over"):
            handler(message)
        if kind == "hello":
            send({"type": "ready"}, out)
        elif kind == "match_over":
            return
