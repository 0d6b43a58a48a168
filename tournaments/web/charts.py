"""Small inline SVG charts (no script, no external library): a sparkline and a rating line."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe


def _scaled(
    values: Sequence[float],
    width: float,
    height: float,
    pad: float,
    bounds: tuple[float, float] | None = None,
) -> list[str]:
    low, high = bounds or (min(values), max(values))
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


def rating_chart(
    values: Sequence[float],
    label: str,
    dates: Sequence[str] = (),
    interval: tuple[float, float] | None = None,
    intervals: Sequence[tuple[float, float] | None] = (),
) -> SafeString:
    """A bot's rating after each rated match: the line, three grid lines with their
    ratings written beside the chart (text inside a stretched SVG would be stretched too),
    the first and last dates under it, and the rating's present 95% interval as a band at
    its right end; with ``intervals`` (each sample's 95% interval, None where the history
    did not keep it), the band follows the line through every sample that has one."""
    if len(values) < 2:
        return mark_safe("")
    width, height, pad = 600, 160, 8
    low, high = min(values), max(values)
    for bounds in [interval, *intervals]:
        if bounds is not None:
            low, high = min(low, bounds[0]), max(high, bounds[1])
    ticks = (high, (high + low) / 2, low)
    return format_html(
        '<div class="chart-scale" aria-hidden="true">{ticks}</div>'
        '<svg class="chart" viewBox="0 0 {w} {h}" preserveAspectRatio="none" role="img" '
        'aria-label="{label}, from {first} to {last}{when}">{grid}{band}'
        '<polyline points="{points}"/></svg>{dates}',
        ticks=format_html_join("", "<span>{}</span>", ((f"{t:.0f}",) for t in ticks)),
        w=width,
        h=height,
        label=label,
        first=f"{min(values):.0f}",
        last=f"{max(values):.0f}",
        when=f" between {dates[0]} and {dates[-1]}" if dates else "",
        grid=format_html_join(
            "",
            '<line class="grid" x1="0" x2="{}" y1="{}" y2="{}"/>',
            ((width, y, y) for y in (_y(t, low, high, height, pad) for t in ticks)),
        ),
        band=_history_band(intervals, (low, high), width, height, pad)
        or _band(interval, low, high, width, height, pad),
        points=" ".join(_scaled(values, width, height, pad, (low, high))),
        dates=format_html(
            '<div class="chart-dates"><span>{}</span><span>{}</span></div>', dates[0], dates[-1]
        )
        if dates
        else "",
    )


def _y(value: float, low: float, high: float, height: float, pad: float) -> str:
    span = (high - low) or 1.0
    return f"{pad + (high - value) / span * (height - 2 * pad):.1f}"


def _band(
    interval: tuple[float, float] | None,
    low: float,
    high: float,
    width: float,
    height: float,
    pad: float,
) -> SafeString:
    """The present interval: a shaded band over the last twentieth of the chart."""
    if interval is None:
        return mark_safe("")
    top, bottom = _y(interval[1], low, high, height, pad), _y(interval[0], low, high, height, pad)
    return format_html(
        '<rect class="band" x="{}" y="{}" width="{}" height="{}"/>',
        f"{width * 0.95:.1f}",
        top,
        f"{width * 0.05:.1f}",
        f"{float(bottom) - float(top):.1f}",
    )


def _history_band(
    intervals: Sequence[tuple[float, float] | None],
    bounds: tuple[float, float],
    width: float,
    height: float,
    pad: float,
) -> SafeString:
    """The interval of every sample that kept one, as a band along the line ("" when
    fewer than two did: the present interval stands in)."""
    known = [(i, pair) for i, pair in enumerate(intervals) if pair is not None]
    if len(known) < 2:
        return mark_safe("")
    step = (width - 2 * pad) / max(len(intervals) - 1, 1)
    upper = [f"{pad + i * step:.1f},{_y(pair[1], *bounds, height, pad)}" for i, pair in known]
    lower = [f"{pad + i * step:.1f},{_y(pair[0], *bounds, height, pad)}" for i, pair in known]
    return format_html('<polygon class="band" points="{}"/>', " ".join(upper + lower[::-1]))
