"""A replayed game told in words: what ended each hand or deal, and who won the game and why.

Everything here reads the *public* part of the engine's observations (no seat's private
keys) and, at the very end, what the engine reveals once the game is over, which every
view of a finished replay already holds. So the words never tell a seat more than the
frames it is sent: a folded Fifteen Thirty-Five hand is not described, and the cards left
in Big Two hands are named only in the game's outcome, not at the deal that ended.

A line is a list of parts: text, or ``{"cards": [...]}`` drawn as small cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.cards import parse_cards
from judge.engine import Game, JSONDict
from judge.games.fifteen35_scoring import (
    TARGET_15,
    TARGET_35,
    best_total,
    is_natural,
    reachable_totals,
    standing,
    sweeps,
)
from judge.games.oceans11 import VARIANTS as OCEANS_VARIANTS
from judge.hands import hand_name, key_of, score

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
        maker = EVENTS.get(self.game)
        if maker is not None and self.before is not None:
            for line in maker(step, seat, self.before, public, self.names):
                self.events.append({"step": step + 1, "say": line})
        self.before = public

    def outcome(self, result: JSONDict, revealed: JSONDict, variant: str) -> list[Line]:
        final = self.before or {}
        maker = OUTCOMES.get(self.game, generic_outcome)
        return maker(final, result, revealed, self.names, variant)


def winners_line(result: JSONDict, names: Sequence[str], unit: str) -> Line:
    """Who won (places are 1 for the best; ties share) and every seat's score."""
    scores, places = result.get("scores", []), result.get("places", [])
    first = [names[seat] for seat, place in enumerate(places) if place == 1]
    table = ", ".join(f"{names[seat]}: {_number(s)}" for seat, s in enumerate(scores))
    if len(first) == len(places) and len(places) > 1:
        return [f"A draw: every bot has the same {unit} ({table})."]
    who = " and ".join(first) + (" share first place" if len(first) > 1 else " won")
    return [f"{who}. {unit.capitalize()}: {table}."]


def generic_outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    return [winners_line(result, names, "score")]


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# Oceans 11: each hand ends by a concession, an empty deck or a void tie.


def oceans_events(
    step: int, seat: int, before: JSONDict, after: JSONDict, names: Sequence[str]
) -> list[Line]:
    done = after.get("past_hands", [])
    new = done[len(before.get("past_hands", [])) :]
    first = len(done) - len(new)
    return [
        _oceans_hand(first + i + 1, hand, before, after, names, after.get("variant", ""))
        for i, hand in enumerate(new)
    ]


def _row_name(cards: Sequence[str], variant: str) -> str:
    if not cards:
        return "no cards"
    spec = OCEANS_VARIANTS.get(variant) or OCEANS_VARIANTS["standard"]
    return hand_name(key_of(score(parse_cards(list(cards)), spec.wilds)))


def _oceans_hand(
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


def oceans_outcome(
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


# Fifteen Thirty-Five: each hand's pot goes to the last player in, or is split at showdown.


def fifteen_events(
    step: int, seat: int, before: JSONDict, after: JSONDict, names: Sequence[str]
) -> list[Line]:
    hand = after.get("last_hand")
    if not hand or hand == before.get("last_hand"):
        return []
    return fifteen_hand(hand, names)


def half_points(total: int) -> str:
    """A total in half-points as points (29 is 14½)."""
    whole, half = divmod(total, 2)
    return f"{whole}½" if half else str(whole)


def fifteen_hand(hand: JSONDict, names: Sequence[str]) -> list[Line]:
    """The showdown's best totals, the declarations and how the pot was split."""
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
        totals = reachable_totals(held)
        line: Line = [
            f"{names[seat]} ",
            {"cards": hand["showdown"][str(seat)]},
            f": best total {half_points(best_total(totals, TARGET_15))} for 15, "
            f"{half_points(best_total(totals, TARGET_35))} for 35",
        ]
        if is_natural(held):
            line.append(" (a Natural: exactly 15 and exactly 35)")
        elif seat in declared:
            line.append(f"; declared {_declared(declared[seat])}")
        lines.append([*line, "."])
    lines.append([_split_reason(cards, declared, names), " ", _shares(won, names)])
    return lines


def _declared(declaration: str) -> str:
    return "both (15 and 35)" if declaration == "both" else declaration


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
            return f"{names[seat]} declared both and beat every rival on both sides: all of it."
    failed = [names[s] for s in both]
    said = (
        f"{' and '.join(failed)} declared both without beating every rival on both sides, "
        "so won nothing. "
        if failed
        else ""
    )
    sides = [side for side in ("15", "35") if side in declared.values()]
    if not sides:
        return said + "Nobody else declared, so each half goes to the best hand for it."
    if len(sides) == 1:
        return said + f"Only {sides[0]} was declared: its best hand takes the whole pot."
    return said + "The nearest to 15 among the 15s takes half, the nearest to 35 the other."


def _shares(won: Sequence[int], names: Sequence[str]) -> str:
    got = [f"{names[seat]}: {chips}" for seat, chips in enumerate(won) if chips]
    return "Chips won: " + (", ".join(got) if got else "none") + "."


def fifteen_outcome(
    final: JSONDict, result: JSONDict, revealed: JSONDict, names: Sequence[str], variant: str
) -> list[Line]:
    return [winners_line(result, names, "chips at the end")]


# Big Two: a deal ends when a hand is empty; the others pay for the cards they hold.


def bigtwo_events(
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


def bigtwo_outcome(
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


EVENTS: dict[str, EventMaker] = {
    "oceans11": oceans_events,
    "fifteen35": fifteen_events,
    "bigtwo": bigtwo_events,
}
OUTCOMES: dict[str, OutcomeMaker] = {
    "oceans11": oceans_outcome,
    "fifteen35": fifteen_outcome,
    "bigtwo": bigtwo_outcome,
}
