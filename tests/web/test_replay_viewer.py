"""The replay viewer in a real browser for Big Two and Fifteen Thirty-Five (Oceans 11 is in
the journey test): hidden cards stay face down in one seat's view, and show in the
all-seats view and at the end; pages fit a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.conftest import Visit, make_user, played_tournament, quick_bot
from tournaments.models import Match

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
]


def open_replay(visit: Visit, game: str, players: int, **fields: object) -> Match:
    owner = make_user(f"{game}-fan")
    entrants = [quick_bot(owner, game, f"{game}-{i}", "greedy") for i in range(players)]
    tournament = played_tournament(owner, game, entrants, table_size=players, **fields)
    match = Match.objects.get(tournament=tournament)
    visit.go(f"/matches/{match.pk}/")
    expect(visit.page.locator("#rv-counter")).to_have_text(re.compile(r"step 1 of \d+"))
    return match


def test_big_two_shows_only_the_chosen_seats_hand_until_the_end(visit: Visit) -> None:
    page = visit.page
    open_replay(visit, "bigtwo", 4)
    boxes = page.locator(".seat-box")
    expect(boxes).to_have_count(4)
    expect(page.locator("#rv-table .card.back")).to_have_count(0)
    expect(boxes.nth(2).locator(".card")).to_have_count(13)
    visit.shot("bigtwo-all-seats")

    page.locator("#rv-seat").select_option("2")
    expect(boxes.nth(2).locator(".card:not(.back)")).to_have_count(13)
    for other in (0, 1, 3):
        expect(boxes.nth(other).locator(".card:not(.back)")).to_have_count(0)
        expect(boxes.nth(other).locator(".card.back")).to_have_count(13)
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#rv-counter")).to_have_text(re.compile(r"step 7 of"))
    expect(page.locator(".trick .card, .centre").first).to_be_visible()
    page.locator("#rv-decision").click()
    expect(page.locator("#rv-step")).to_contain_text("bigtwo-2")  # seat 2's bot
    expect(page.locator("#rv-step .legal")).to_be_visible()
    visit.shot("bigtwo-seat-2")

    page.keyboard.press("End")
    expect(page.locator("#rv-table .card.back")).to_have_count(0)
    visit.shot("bigtwo-end")


def test_fifteen_thirty_five_shows_bets_the_pot_and_hidden_cards(visit: Visit) -> None:
    page = visit.page
    open_replay(visit, "fifteen35", 3, options={"hands": 2})
    expect(page.locator("#rv-table .centre")).to_contain_text("Pot")
    expect(page.locator(".seat-box")).to_have_count(3)
    page.locator("#rv-seat").select_option("1")
    backs = page.locator(".seat-box").nth(0).locator(".card.back")
    expect(backs).to_have_count(3)
    expect(page.locator(".seat-box").nth(1).locator(".card:not(.back)")).to_have_count(3)
    page.locator("#rv-decision").click()
    page.locator("#rv-decision").click()
    expect(page.locator("#rv-step .legal")).to_contain_text(re.compile("fold|check|call|bet|take"))
    visit.shot("fifteen35-seat-1")
    page.locator("#rv-seat").select_option("all")
    expect(page.locator("#rv-table .card.back")).to_have_count(0)
    visit.shot("fifteen35-all-seats")


def test_the_pages_fit_a_phone_screen(visit: Visit) -> None:
    page = visit.page
    page.set_viewport_size({"width": 390, "height": 844})
    open_replay(visit, "bigtwo", 4)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the replay page is {width} px wide on a 390 px phone"
    visit.shot("phone-replay")
    visit.go("/leaderboard/bigtwo/")
    expect(page.locator("table.board tbody tr")).to_have_count(4)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    visit.shot("phone-leaderboard")
    page.keyboard.press("Tab")
    expect(page.locator(".skip")).to_be_focused()
