"""Fifteen Thirty-Five told in words: each hand's pot goes to the last player in, or is
split at the showdown; every comparison that decided a half names the rule that decided it
(nearer the target; at equal distance under beats over; then fewer cards)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judge.cards import Card, parse_cards
from judge.engine import JSONDict
from judge.games.fifteen35.scoring import (
    TARGET_15,
    TARGET_35,
    best_total,
    is_natural,
    reachable_totals,
    standing,
    sweeps,
)
from judge.narration import Line, winners_line

SIDES = {"15": TARGET_15, "35": TARGET_35}


def events(
    step: int, seat: int, before: JSONDict, after: JSONDict, names: Sequence[str]
) -> list[Line]:
    """A hand's story once it has been settled (its last action shows it)."""
    hand = after.get("last_hand")
    if not hand or hand == before.get("last_hand"):
        return []
    return hand_lines(hand, names)


def outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    return [winners_line(result, names, "chips at the end")]


def half_points(total: int) -> str:
    """A total in half-points as points (29 is 14½)."""
    whole, half = divmod(total, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


def hand_lines(hand: JSONDict, names: Sequence[str]) -> list[Line]:
    """The showdown's best totals, the declarations and how the pot was split, and why."""
    number, pot = hand["hand"] + 1, hand["pot"]
    won = hand.get("won", [])
    takers = [seat for seat, chips in enumerate(won) if chips]
    if not hand.get("showdown"):
        who = names[takers[0]] if takers else "nobody"
        return [[f"Hand {number}: everyone else folded, so {who} took the pot of {pot}."]]
    lines: list[Line] = [[f"Hand {number}: showdown for a pot of {pot}."]]
    cards = {int(seat): parse_cards(shown) for seat, shown in hand["showdown"].items()}
    declared = {int(seat): d for seat, d in hand.get("declarations", {}).items()}
    for seat, held in sorted(cards.items()):
        lines.append(_shown_hand(seat, held, hand["showdown"][str(seat)], declared, names))
    lines.append([_split_reason(cards, declared, names), " ", _shares(won, names)])
    return lines


def _shown_hand(
    seat: int, held: list[Card], shown: list[str], declared: Mapping[int, str], names: Sequence[str]
) -> Line:
    totals = reachable_totals(held)
    line: Line = [
        f"{names[seat]} ",
        {"cards": list(shown)},
        f": best total {half_points(best_total(totals, TARGET_15))} for 15, "
        f"{half_points(best_total(totals, TARGET_35))} for 35",
    ]
    if is_natural(held):
        line.append(" (a Natural: exactly 15 and exactly 35)")
    elif seat in declared:
        line.append(f"; declared {_declared(declared[seat])}")
    return [*line, "."]


def _declared(declaration: str) -> str:
    return "both (15 and 35)" if declaration == "both" else declaration


def why_ahead(winner: list[Card], other: list[Card], side: str, names: tuple[str, str]) -> str:
    """Which rule puts ``winner``'s hand ahead of (or level with) ``other``'s for ``side``:
    nearer the target, then under beats over, then fewer cards."""
    target = SIDES[side]
    mine, theirs = standing(winner, target), standing(other, target)
    total = half_points(best_total(reachable_totals(winner), target))
    rival = half_points(best_total(reachable_totals(other), target))
    said = f"{names[0]}'s {total} and {names[1]}'s {rival} for {side}"
    if mine[0] != theirs[0]:
        return (
            f"{names[0]}'s {total} beat {names[1]}'s {rival} for {side}: nearer {side} "
            f"({half_points(mine[0])} away against {half_points(theirs[0])})"
        )
    if mine[1] != theirs[1]:
        return (
            f"{names[0]}'s {total} beat {names[1]}'s {rival} for {side}: as near as it, "
            f"and under {side} beats over"
        )
    if mine[2] != theirs[2]:
        return f"{said} are level; {names[0]} has fewer cards ({mine[2]} against {theirs[2]})"
    return f"{said} tie: same distance, same side, same number of cards"


def _split_reason(cards: dict[int, Any], declared: dict[int, str], names: Sequence[str]) -> str:
    """Why the chips went where they did, in the order the rules decide (split_pot)."""
    naturals = [names[s] for s, held in cards.items() if is_natural(held)]
    if naturals:
        return f"A Natural takes the pot: {' and '.join(naturals)}."
    by_15 = {s: standing(held, TARGET_15) for s, held in cards.items()}
    by_35 = {s: standing(held, TARGET_35) for s, held in cards.items()}
    both = [s for s, d in declared.items() if d == "both"]
    for seat in both:
        if sweeps(seat, declared, by_15, by_35):
            return (
                f"{names[seat]} declared both and beat every rival on both sides: all of it."
                + _comparisons(seat, cards, declared, names, ("15", "35"))
            )
    said = ""
    for seat in both:
        said += f"{names[seat]} declared both without beating every rival on both sides, "
        said += "so won nothing" + _lost_sides(seat, cards, declared, names) + ". "
    sides = [side for side in ("15", "35") if side in declared.values()]
    if not sides:
        return said + "Nobody else declared, so each half goes to the best hand for it."
    reasons = "".join(_half_reason(side, cards, declared, names) for side in sides)
    if len(sides) == 1:
        return said + f"Only {sides[0]} was declared: its best hand takes the whole pot." + reasons
    return (
        said
        + "The nearest to 15 among the 15s takes half, the nearest to 35 the other."
        + (reasons)
    )


def _lost_sides(
    seat: int, cards: dict[int, Any], declared: Mapping[int, str], names: Sequence[str]
) -> str:
    """Where a "both" declarer failed to beat a rival: the first rival per side."""
    found = []
    for side in ("15", "35"):
        target = SIDES[side]
        for other in sorted(declared):
            rival = other != seat and declared[other] in (side, "both")
            if rival and standing(cards[seat], target) >= standing(cards[other], target):
                pair = (names[other], names[seat])
                found.append(why_ahead(cards[other], cards[seat], side, pair))
                break
    return f" ({'; '.join(found)})" if found else ""


def _half_reason(
    side: str, cards: dict[int, Any], declared: Mapping[int, str], names: Sequence[str]
) -> str:
    """How the best of the ``side`` declarers beat the next one (nothing if only one)."""
    target = SIDES[side]
    seats = sorted(
        (s for s, d in declared.items() if d == side), key=lambda s: standing(cards[s], target)
    )
    if len(seats) < 2:
        return ""
    best, next_best = seats[0], seats[1]
    pair = (names[best], names[next_best])
    return " " + why_ahead(cards[best], cards[next_best], side, pair) + "."


def _comparisons(
    seat: int,
    cards: dict[int, Any],
    declared: Mapping[int, str],
    names: Sequence[str],
    sides: Sequence[str],
) -> str:
    said = []
    for side in sides:
        rivals = [o for o in sorted(declared) if o != seat and declared[o] in (side, "both")]
        for other in rivals[:1]:
            said.append(why_ahead(cards[seat], cards[other], side, (names[seat], names[other])))
    return (" " + "; ".join(said) + ".") if said else ""


def _shares(won: Sequence[int], names: Sequence[str]) -> str:
    got = [f"{names[seat]}: {chips}" for seat, chips in enumerate(won) if chips]
    return "Chips won: " + (", ".join(got) if got else "none") + "."
