"""Long lists go by "more" pages (a leaderboard past its first rows, a bot's matches past
the recent ones), each page one index range; lists say dates with their time zone, games by
their names, and can be filtered."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from playwright.sync_api import expect

from tests.web.conftest import Visit, make_user, quick_bot
from tournaments.models import Rating
from tournaments.web import board_views

pytestmark = pytest.mark.django_db(transaction=True)


def rated_bots(count: int, elo_of: object = None) -> list[str]:
    """``count`` rated Big Two bots, best first (the 3rd and 4th tied, to test the order)."""
    owner = make_user("rater")
    names = []
    for i in range(count):
        bot = quick_bot(owner, "bigtwo", f"rated-{i:02d}").bot
        elo = 1600 - 10 * i if i != 3 else 1580  # rated-02 and rated-03 tie across pages
        Rating.objects.create(bot=bot, game="bigtwo", elo=elo, matches=3, wins=2, losses=1)
        names.append(bot.name)
    return names


def test_the_leaderboard_shows_more_rows_page_by_page_in_order(
    visit: Visit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_views, "LEADERBOARD_ROWS", 3)
    names = rated_bots(8)
    page = visit.page
    visit.go("/leaderboard/bigtwo/")
    seen: list[str] = []
    for first_place in (1, 4, 7):
        rows = page.locator("table.board tbody tr")
        expect(rows.first.locator("td").first).to_have_text(str(first_place))
        seen += [
            rows.nth(i).locator("td").nth(1).locator("a").inner_text() for i in range(rows.count())
        ]
        more = page.get_by_role("link", name=re.compile("^More"))
        if first_place == 7:
            expect(more).to_have_count(0)
            break
        expect(more).to_have_text(f"More: from place {first_place + 3} ›")
        visit.audit()
        more.click()
    assert seen == names
    expect(page).to_have_title(re.compile("Big Two leaderboard from place 7"))
    visit.check("leaderboard-last-page")
    page.get_by_role("link", name="‹ top").click()
    expect(page.locator("table.board tbody tr").first.locator("td").first).to_have_text("1")
    visit.audit()


def test_a_deep_leaderboard_page_costs_the_queries_of_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(board_views, "LEADERBOARD_ROWS", 2)
    rated_bots(7)
    client, costs, url = Client(), set(), "/leaderboard/bigtwo/"
    for _ in range(3):
        with CaptureQueriesContext(connection) as captured:
            answer = client.get(url)
        costs.add(len(captured))
        url = "/leaderboard/bigtwo/?after={after}&elo={elo}&place={place}".format(
            **answer.context["more"]
        )
    assert len(costs) == 1, costs
    assert client.get("/leaderboard/bigtwo/?after=1&elo=nan&place=-1").status_code == 200
