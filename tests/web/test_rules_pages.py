"""The rules pages are for players: no test names or source paths, no backticks in a title,
card pictures (a code span of cards, `A♠ 10♥`, is drawn as cards named for screen readers)
and tables that fit a 390 px phone (a wide table scrolls in its own box),
axe clean at 1280 and 390 px; the rule-by-rule tests are one link away, for implementers."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from judge.games import GAMES
from tests.web.conftest import Visit

pytestmark = pytest.mark.django_db(transaction=True)

#: What a player's page must not hold: a test's name or a path of the repository's source.
DEVELOPER_TEXT = re.compile(
    r"\btest_\w+|\b(?:judge|tests|tournaments|sandbox|seeds|docs)/[\w./-]+|\w+\.(?:py|js)\b"
)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_rules_page_speaks_to_players_and_fits_a_phone(visit: Visit, game: str) -> None:
    page = visit.page
    visit.go(f"/rules/{game}/")
    heading = page.locator("main h1")
    expect(heading).to_be_visible()
    assert "`" not in heading.inner_text() and "`" not in page.title()
    text = page.locator("main").inner_text()
    assert not DEVELOPER_TEXT.search(text), DEVELOPER_TEXT.search(text)
    assert re.search(r"[♠♥♦♣]", text), "the page draws its cards with their suits"
    cards = page.locator("main .cards .card[role=img]")
    expect(cards.first).to_have_attribute(
        "aria-label", re.compile(r"^\w+ of (spades|hearts|diamonds|clubs)$")
    )
    expect(page.locator("main table").first).to_be_visible()
    visit.check(f"rules-{game}")  # 1280 and 390 px: axe, and nothing wider than the screen
    page.locator("main").get_by_role("link", name="the rules and their tests").click()
    expect(page.locator("main h1")).to_contain_text("the rules and their tests")
    assert re.search(r"\btest_\w+", page.locator("main").inner_text())
    visit.audit(f"rules-{game}-tests")
