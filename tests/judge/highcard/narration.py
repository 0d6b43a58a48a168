"""High Card told in words: each round ends by a fold or by comparing the two cards."""

from __future__ import annotations

from collections.abc import Sequence

from judge.engine import JSONDict
from judge.narration import Line, winners_line


def events(
    step: int, seat: int, before: JSONDict, after: JSONDict, names: Sequence[str]
) -> list[Line]:
    """The round an action ended: who folded, or whose card was higher (and by which rule)."""
    done = after.get("past", [])
    if len(done) <= len(before.get("past", [])):
        return []
    last, number = done[-1], len(done)
    winner = last["winner"]
    if last["cards"] is None:
        return [[f"Round {number}: {names[1 - winner]} folded, so {names[winner]} takes 1."]]
    shown: Line = [
        f"Round {number}: ",
        {"cards": [last["cards"][0]]},
        " against ",
        {"cards": [last["cards"][1]]},
    ]
    if winner is None:
        return [[*shown, ": equal ranks, nobody scores."]]
    return [[*shown, f": the higher rank wins, so {names[winner]} takes 2."]]


def outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    return [winners_line(result, names, "points")]
