"""Small inline SVG charts (no script, no external library): a sparkline and a rating line."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe


def _scaled(values: Sequence[float], width: float, height: float, pad: float) -> list[str]:
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    return [
        f"{pad + i * step:.1f},{pad + (high - v) / span * (height - 2 * pad):.1f}"
        for i, v in enumerate(values)
    ]


def sparkline(values: Sequence[float], label: str) -> SafeString:
    """A tiny line of the last ratings, green when it ends up, red when down."""
    if len(values) < 2:
        return mark_safe("")
    colour = "up" if values[-1] >= values[0] else "down"
    return format_html(
        '<svg class="spark {}" viewBox="0 0 80 20" width="80" height="20" role="img" '
        'aria-label="{}"><polyline points="{}"/></svg>',
        colour,
        label,
        " ".join(_scaled(values, 80, 20, 2)),
    )


def rating_chart(values: Sequence[float], label: str) -> SafeString:
    """A bot's rating after each rated match; its highest and lowest values are written
    beside the chart (text inside a stretched SVG would be stretched too)."""
    if len(values) < 2:
        return mark_safe("")
    width, height, pad = 600, 160, 8
    return format_html(
        '<div class="chart-scale"><span>{high}</span><span>{low}</span></div>'
        '<svg class="chart" viewBox="0 0 {w} {h}" preserveAspectRatio="none" role="img" '
        'aria-label="{label}, from {low} to {high}"><polyline points="{points}"/></svg>',
        w=width,
        h=height,
        label=label,
        points=" ".join(_scaled(values, width, height, pad)),
        high=f"{max(values):.0f}",
        low=f"{min(values):.0f}",
    )
