"""The duel's LLR chart: an SVG with the walk, the two bounds, and nothing to run."""

from __future__ import annotations

from xml.etree import ElementTree

from judge.duel.chart import HEIGHT, MARGIN, llr_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_the_walk_and_the_bounds_are_drawn_where_their_values_are() -> None:
    svg = ElementTree.fromstring(llr_svg([(20, 1.0), (40, -2.0)], -2.5, 2.5, max_games=80))
    walk = svg.find(f"{SVG}polyline")
    assert walk is not None
    points = [tuple(map(float, p.split(","))) for p in walk.attrib["points"].split()]
    assert [x for x, _ in points] == sorted(x for x, _ in points) and len(points) == 3
    lines = {line.attrib["y1"]: line for line in svg.iter(f"{SVG}line")}
    top, bottom = MARGIN[2], HEIGHT - MARGIN[3]
    # The y range is the bounds widened by 15% (no point lies outside them): -2.875 to 2.875.
    h1_y = top + (bottom - top) * (2.875 - 2.5) / 5.75
    assert f"{round(h1_y, 1)}" in lines
    # The walk's second point, LLR 1.0, sits between the zero line and H1's.
    zero_y = top + (bottom - top) / 2
    assert h1_y < points[1][1] < zero_y
    # x runs to the cap: 20 of 80 games is a quarter of the plot's width.
    assert points[1][0] - points[0][0] == (640 - MARGIN[0] - MARGIN[1]) / 4


def test_the_chart_holds_no_script_and_says_where_it_stands() -> None:
    text = llr_svg([(10, 3.5)], -2.94, 2.94)
    svg = ElementTree.fromstring(text)
    assert not list(svg.iter(f"{SVG}script")) and "href" not in text
    assert svg.attrib["aria-label"] == "LLR after 10 games: +3.50"
    assert ElementTree.fromstring(llr_svg([], -2.94, 2.94)).find(f"{SVG}title") is not None
