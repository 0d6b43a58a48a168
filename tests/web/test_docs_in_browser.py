"""A bot author finds how to write a bot from every page that should say it: the home page's
"Get started", the menu, the upload page and each leaderboard, then reads the guide, the
protocol, a game's rules and the starter kits, on a laptop and on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.conftest import Visit, log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_home_get_started_leads_to_the_guide_then_the_protocol_rules_and_starters(
    visit: Visit,
) -> None:
    page = visit.page
    visit.go("/")
    visit.check("01-home")
    page.get_by_role("link", name="Get started: write a bot").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Writing a bot")
    expect(page).to_have_title(re.compile("^Writing a bot"))
    visit.check("02-bots-guide")

    docs_menu = page.get_by_role("navigation", name="Documentation")
    docs_menu.get_by_role("link", name="The protocol").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("protocol")
    expect(page.locator(".doc table").first).to_be_visible()
    visit.check("03-protocol")

    docs_menu.get_by_role("link", name="Rules: Big Two").click()
    expect(page).to_have_url(re.compile(r"/rules/bigtwo/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Big Two")
    visit.check("04-rules-bigtwo")
    page.get_by_role("link", name="The leaderboard of this game").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Big Two leaderboard")
    visit.audit()
    page.get_by_role("link", name="Rules of Big Two").click()
    expect(page).to_have_url(re.compile(r"/rules/bigtwo/$"))
    visit.audit()

    docs_menu.get_by_role("link", name="Starter kits").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Starter kits")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download main.py").click()
    assert download.value.suggested_filename == "main.py"
    visit.check("05-starters")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Docs").click()
    expect(page).to_have_url(re.compile(r"/docs/$"))
    visit.check("06-docs-index")
    page.locator(".doc").get_by_role("link", name="rules/oceans11.md").click()
    expect(page).to_have_url(re.compile(r"/rules/oceans11/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Oceans 11")
    visit.audit()


def test_the_upload_page_links_the_docs_instead_of_naming_a_file(visit: Visit) -> None:
    page = visit.page
    make_user("ada")
    log_in(visit, "ada")
    visit.go("/bots/upload/")
    expect(page.locator("main")).not_to_contain_text("docs/protocol.md")
    visit.check("upload")
    page.get_by_role("link", name="the protocol").click()
    expect(page).to_have_url(re.compile(r"/docs/protocol/$"))
    visit.audit()
    page.go_back()
    visit.audit()
    page.get_by_role("link", name="Fifteen Thirty-Five").last.click()
    expect(page).to_have_url(re.compile(r"/rules/fifteen35/$"))
    visit.audit()


def test_an_unknown_doc_is_a_friendly_404(visit: Visit) -> None:
    response = visit.page.goto(visit.base + "/docs/no-such-page/")
    assert response is not None and response.status == 404
    visit.audit()
