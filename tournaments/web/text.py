"""Numbers written out in Python as the template filters would write them.

A list page of 200 rows with five figures each spends more in ``floatformat`` and in
localizing integers than in its queries; the views write the figures here once and the
templates only place the strings.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

ONE = Decimal(1)
TENTH = Decimal("0.1")


def whole(value: float) -> str:
    """``value|floatformat:0``: rounded half away from zero, never "-0"."""
    rounded = Decimal(repr(float(value))).quantize(ONE, rounding=ROUND_HALF_UP)
    return "0" if rounded == 0 else str(rounded)


def signed_whole(value: float) -> str:
    """A change as the leaderboard shows it: "+" before it unless it is below zero."""
    return ("+" if value >= 0 else "") + whole(value)


def at_most_one_decimal(value: float) -> str:
    """``value|floatformat:"-1"``: no decimals for a whole number, else one (half up)."""
    exact = Decimal(repr(float(value)))
    if exact == exact.to_integral_value():
        return whole(value)
    rounded = exact.quantize(TENTH, rounding=ROUND_HALF_UP)
    return "0.0" if rounded == 0 else str(rounded)
