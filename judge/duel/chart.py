"""The LLR chart of a duel as a self-contained SVG: the ratio after each round against the
two bounds, so one sees how close the test came to each decision and how fast.

Plain SVG with no script and no external reference, so it can be written to a file by
the command line or put inline in a page whose content security policy allows only the
site's own scripts. The only text is numbers and fixed words, escaped anyway.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape, quoteattr

WIDTH, HEIGHT = 640, 260
#: Room for the axes' labels: left, right, top, bottom.
MARGIN = (48, 96, 16, 32)

Scale = Callable[[float], float]


def _scale(low: float, high: float, size: float, start: float, flip: bool) -> Scale:
    """Values from ``low`` to ``high`` onto ``size`` pixels from ``start`` (``flip``: y
    grows downwards in SVG)."""
    span = (high - low) or 1.0

    def to_px(value: float) -> float:
        share = (value - low) / span
        return round(start + (size * (1.0 - share) if flip else size * share), 1)

    return to_px


def llr_svg(
    points: Sequence[tuple[int, float]], lower: float, upper: float, max_games: int = 0
) -> str:
    """The chart of ``points`` (games played, LLR) between the bounds ``lower``/``upper``;
    the x axis runs to the cap when there is one, else to the last point."""
    left, right, top, bottom = MARGIN
    inner_w, inner_h = WIDTH - left - right, HEIGHT - top - bottom
    last = max([games for games, _ in points] + [max_games, 2])
    values = [llr for _, llr in points]
    y_low, y_high = min([lower * 1.15, *values]), max([upper * 1.15, *values])
    x = _scale(0, last, inner_w, left, flip=False)
    y = _scale(y_low, y_high, inner_h, top, flip=True)
    path = " ".join(f"{x(games)},{y(llr)}" for games, llr in [(0, 0.0), *points])
    label = f"LLR after {points[-1][0] if points else 0} games: " + (
        f"{values[-1]:+.2f}" if values else "no games yet"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label={quoteattr(label)} class="llr-chart">',
        f"<title>{escape(label)}</title>",
        _bound_line(x(0), x(last), y(upper), f"H1 {upper:+.2f}", "#1a7f37"),
        _bound_line(x(0), x(last), y(lower), f"H0 {lower:+.2f}", "#b3261e"),
        _bound_line(x(0), x(last), y(0.0), "0", "#888888"),
        f'<polyline points="{path}" fill="none" stroke="#1f4e9c" stroke-width="2"/>',
        f'<text x="{x(last)}" y="{HEIGHT - 8}" text-anchor="end" font-size="12">'
        f"{last} games</text>",
        f'<text x="{left}" y="{HEIGHT - 8}" font-size="12">0</text>',
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def _bound_line(x0: float, x1: float, at: float, text: str, colour: str) -> str:
    return (
        f'<line x1="{x0}" y1="{at}" x2="{x1}" y2="{at}" stroke="{colour}" '
        f'stroke-dasharray="6 4"/>'
        f'<text x="{x1 + 6}" y="{at + 4}" font-size="12" fill="{colour}">{escape(text)}</text>'
    )
