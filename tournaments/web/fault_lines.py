"""A stored fault as the pages tell it: the match page lists them all, the bot page shows
its owner the last one of a version that keeps faulting."""

from __future__ import annotations

from typing import Any


def fault_line(fault: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """A fault as the page tells it: the bot by name, game and step counted from 1 (as
    the viewer counts), and the link to that step (#g2s34; #g2end outside a move)."""
    bot, game, move = fault.get("bot"), fault.get("game"), fault.get("move")
    line = {
        "bot": names[bot] if isinstance(bot, int) and 0 <= bot < len(names) else f"bot {bot}",
        "kind": fault.get("kind", ""),
        "reason": fault.get("reason", ""),
        "text": fault.get("text", ""),
        "where": "at start-up, before the first game",
        "anchor": "",
    }
    seat = fault.get("seat")
    at_seat = f", seat {seat + 1}" if isinstance(seat, int) else ""
    if isinstance(game, int) and isinstance(move, int):
        line["where"] = f"game {game + 1}, step {move + 1}{at_seat}"
        line["anchor"] = f"#g{game + 1}s{move + 1}"
    elif isinstance(game, int):
        line["where"] = f"game {game + 1}, after its last step{at_seat}"
        line["anchor"] = f"#g{game + 1}end"
    return line
