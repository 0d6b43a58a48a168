"""Oceans 11 told in words: each hand ends by a concession, an empty deck or a void tie,
and the game by reaching the target or by the decks running out."""

from __future__ import annotations

from collections.abc import Sequence

from judge.cards import parse_cards
from judge.engine import JSONDict
from judge.games.oceans11 import VARIANTS
from judge.hands import hand_name, key_of, score
from judge.narration import Line


def events(
    step: int, seat: int, before: JSONDict, after: JSONDict, names: Sequence[str]
) -> list[Line]:
    done = after.get("past_hands", [])
    new = done[len(before.get("past_hands", [])) :]
    first = len(done) - len(new)
    return [
        _hand(first + i + 1, hand, before, after, names, after.get("variant", ""))
        for i, hand in enumerate(new)
    ]


def _row_name(cards: Sequence[str], variant: str) -> str:
    if not cards:
        return "no cards"
    spec = VARIANTS.get(variant) or VARIANTS["standard"]
    return hand_name(key_of(score(parse_cards(list(cards)), spec.wilds)))


def _hand(
    number: int, hand: JSONDict, before: JSONDict, after: JSONDict, names: Sequence[str], v: str
) -> Line:
    rows, winner, how = hand["rows"], hand["winner"], hand["how"]
    wins = after.get("wins", [0, 0])
    score_now = f"{wins[0]}–{wins[1]}"
    if winner is None:
        return [f"Hand {number}: a tie with both decks empty; nobody wins it ({score_now})."]
    loser = 1 - winner
    mine, theirs = rows[loser], rows[winner]
    beaten: Line = [
        f"{names[loser]}'s ",
        {"cards": list(mine)},
        f" ({_row_name(mine, v)}) against {names[winner]}'s ",
        {"cards": list(theirs)},
        f" ({_row_name(theirs, v)})",
    ]
    head = f"Hand {number}, won by {names[winner]} ({score_now}): "
    if how == "conceded":
        left = after.get("deck_sizes", [0, 0])[loser]
        return [
            head,
            f"{names[loser]} conceded, its row the weaker: ",
            *beaten,
            f", rather than deal more of its {left} cards left.",
        ]
    if how == "no cards":
        return [head, f"{names[loser]} had to deal but had no cards left: ", *beaten, "."]
    return [
        head,
        f"{names[loser]}'s deck was empty, so {names[winner]} turned ",
        {"cards": list(theirs)},
        " and took the hand.",
    ]


def outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    wins, target = final.get("wins", [0, 0]), final.get("target", 0)
    if wins[0] == wins[1]:
        return [[f"A draw: {wins[0]} hands each (the decks ran out before {target} wins)."]]
    top = 0 if wins[0] > wins[1] else 1
    how = "reached" if wins[top] >= target else "led when the decks ran out, short of"
    lines: list[Line] = [
        [
            f"{names[top]} won the game {wins[top]} hands to {wins[1 - top]}: "
            f"it {how} the {target} wins the game needs."
        ]
    ]
    hands = final.get("past_hands", [])
    conceded = [h for h in hands if h["how"] == "conceded" and h["winner"] == top]
    if conceded:
        lines.append([f"{names[1 - top]} conceded {len(conceded)} of the hands {names[top]} won."])
    return lines
