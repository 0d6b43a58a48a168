"""On a phone (390x844) the main menu folds behind a "Menu" button, and the pages' tables
fit the screen without sideways scrolling; on a laptop the menu is always open."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.web.conftest import (
    DESKTOP,
    PHONE,
    Visit,
    log_in,
    make_user,
    played_tournament,
    quick_bot,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def test_the_menu_folds_on_a_phone_and_opens_and_closes_from_its_button(visit: Visit) -> None:
    page = visit.page
    page.set_viewport_size(PHONE)
    visit.go("/")
    nav = page.get_by_role("navigation", name="Main")
    toggle = nav.get_by_role("button", name="Menu")
    tournaments = nav.get_by_role("link", name="Tournaments")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(tournaments).to_be_hidden()
    visit.shot("menu-folded")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(tournaments).to_be_visible()
    expect(nav.get_by_role("link", name="Docs")).to_be_visible()
    visit.shot("menu-open")
    page.keyboard.press("Escape")
    expect(tournaments).to_be_hidden()
    expect(toggle).to_be_focused()
    toggle.click()
    tournaments.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Tournaments")
    visit.audit()

    page.set_viewport_size(DESKTOP)
    expect(toggle).to_be_hidden()
    expect(tournaments).to_be_visible()


@pytest.mark.usefixtures("fast_matches")
def test_the_pages_tables_fit_a_phone_without_sideways_scrolling(visit: Visit) -> None:
    owner = make_user("ada")
    entrants = [quick_bot(owner, "bigtwo", f"a-rather-long-bot-name-{i}") for i in range(4)]
    tournament = played_tournament(owner, "bigtwo", entrants, table_size=2)
    log_in(visit, "ada")
    page = visit.page
    for name, address in [
        ("home-signed-in", "/"),
        ("leaderboard", "/leaderboard/bigtwo/"),
        ("tournament", f"/tournaments/{tournament.pk}/"),
        ("tournaments", "/tournaments/"),
        ("bot", f"/bots/{entrants[0].bot_id}/"),
        ("version", f"/versions/{entrants[0].pk}/"),
        ("rules", "/rules/fifteen35/"),
    ]:
        visit.go(address)
        expect(page.locator("main h1")).to_be_visible()
        visit.check(name)  # at 390 px: neither the page nor a table is wider than its box
