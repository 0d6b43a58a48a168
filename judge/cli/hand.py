"""``python -m judge hand [--variant NAME] [CARD ...]``: evaluate Oceans 11 rows.

With cards as arguments, evaluates that one row; without, evaluates one row per line of
standard input (blank lines are skipped). Prints one JSON object per row: ``cards``,
``category``, ``name``, ``best`` (the cards used, at most five), ``stands_for`` (what each
of them counts as: wilds take a rank, and in a flush a suit) and ``key``: integers such
that comparing two keys as lists orders the hands, and equal keys tie. Which cards are
wild follows the variant (default ``standard``: jokers). A bad card, a card that is not
in the variant's deck, or a card given twice, is an error (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any, TextIO

from judge.cards import Card, CardParseError, format_cards, parse_cards
from judge.engine import JSONDict
from judge.games.oceans11 import VARIANTS, VariantSpec
from judge.hands import evaluate

EXIT_BAD_INPUT = 2


class RowError(ValueError):
    """A row that no deck of the variant can hold."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "hand",
        help="evaluate poker rows as Oceans 11 does (JSON out)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--variant", choices=list(VARIANTS), default="standard")
    parser.add_argument("cards", nargs="*", metavar="CARD", help="e.g. As Kd JK (default: stdin)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    spec = VARIANTS[args.variant]
    if args.cards:
        rows: list[tuple[int | None, str]] = [(None, " ".join(args.cards))]
    else:
        lines = enumerate(stdin or sys.stdin, start=1)
        rows = [(number, line) for number, line in lines if line.strip()]
    for number, text in rows:
        try:
            row = checked_row(text, spec, args.variant)
        except (CardParseError, RowError) as bad:
            where = "" if number is None else f"line {number}: "
            print(f"python -m judge hand: error: {where}{bad}", file=sys.stderr)
            return EXIT_BAD_INPUT
        print(json.dumps(row_json(row, spec)), flush=True)
    return 0


def checked_row(text: str, spec: VariantSpec, variant: str) -> list[Card]:
    """The cards of ``text``, refusing any that the variant's deck does not hold."""
    row = parse_cards(text)
    for c in row:
        if c.is_joker and not spec.jokers:
            raise RowError(f"JK: the {variant} variant has no jokers")
        if not c.is_joker and c.suit >= spec.suits:
            raise RowError(f"{c}: suit x exists only in five-suits")
    counts = Counter(format_cards(row))
    if counts["JK"] > spec.jokers:
        raise RowError(f"{counts['JK']} jokers: a {variant} deck holds {spec.jokers}")
    twice = sorted(text for text, n in counts.items() if n > 1 and text != "JK")
    if twice:
        raise RowError(f"{twice[0]} is given twice; a deck holds each card once")
    return row


def row_json(row: list[Card], spec: VariantSpec) -> JSONDict:
    hand = evaluate(row, spec.wilds)
    return {
        "cards": format_cards(row),
        "category": hand.category,
        "name": hand.name,
        "best": format_cards(hand.best),
        "stands_for": format_cards(hand.stands_for),
        "key": list(hand.key),
    }
