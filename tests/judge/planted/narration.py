"""The planted games told in words: the winners alone (the conformance suite asks only
that a game has an ``outcome``)."""

from __future__ import annotations

from collections.abc import Sequence

from judge.engine import JSONDict
from judge.narration import Line, winners_line


def outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    """Who won, by points."""
    return [winners_line(result, names, "points")]
