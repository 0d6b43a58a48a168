"""Big Two told in words: a deal ends when a hand is empty; the others pay for the cards
they hold, and the game's outcome names the cards each was left with."""

from __future__ import annotations

from collections.abc import Sequence

from judge.engine import JSONDict
from judge.narration import Line, winners_line


def events(
    step: int, seat: int, before: JSONDict, after: JSONDict, names: Sequence[str]
) -> list[Line]:
    ended = after.get("deal_scores", [])
    if len(ended) <= len(before.get("deal_scores", [])):
        return []
    counts = before.get("counts", [])
    played = counts[seat] if seat < len(counts) else 0
    left = [f"{names[s]}: {counts[s]}" for s in range(len(counts)) if s != seat and s < len(names)]
    deal = ended[-1]
    return [
        [
            f"Deal {len(ended)}: {names[seat]} went out"
            + (f" with {played} card{'s' if played != 1 else ''}" if played else "")
            + f"; cards left: {', '.join(left)}; points: "
            + ", ".join(f"{names[s]}: {_signed(points)}" for s, points in enumerate(deal))
            + "."
        ]
    ]


def _signed(points: int) -> str:
    return f"+{points}" if points > 0 else str(points)


def outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    lines = [winners_line(result, names, "points")]
    for number, deal in enumerate(revealed.get("deals", []), start=1):
        left = deal.get("left", [])
        out = [names[s] for s, cards in enumerate(left) if not cards]
        line: Line = [f"Deal {number}: {' and '.join(out) or 'nobody'} went out; left: "]
        for seat, cards in enumerate(left):
            if cards:
                line += [f"{names[seat]}: ", {"cards": list(cards)}, " "]
        lines.append(line)
    return lines
