"""A version that keeps faulting, as its owner sees it in a browser: the count, the last
fault linked to its step in the replay, the end of its stderr, the button that puts it
back on the ladder; and as anyone else sees it: none of that (docs/ladder.md)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.tournaments.conftest import CRASHER
from tests.web.conftest import Visit, log_in, make_user, played_tournament, quick_bot
from tournaments.bots import bot_actions
from tournaments.models import BotVersion, bundle_code

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "oceans11"


@pytest.mark.usefixtures("fast_matches")
def test_the_owner_sees_why_the_ladder_took_a_version_off_and_puts_it_back(
    visit: Visit,
) -> None:
    owner, other = make_user("alice"), make_user("bob")
    bot = bot_actions.create_bot(owner, GAME, "crashes-at-once")
    code, digest = bundle_code({"main.py": CRASHER.encode()})
    crasher = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
    opponents = [quick_bot(None, GAME, f"house-{i}") for i in range(3)]
    played_tournament(owner, GAME, [crasher, *opponents])  # three rated matches, 3 faults
    crasher.refresh_from_db()
    assert crasher.off_ladder_at is not None
    page = visit.page

    log_in(visit, other.username)
    visit.go(f"/bots/{bot.pk}/")
    expect(page.get_by_text("Not on the ladder.")).to_be_visible()
    expect(page.get_by_text("crashing on purpose")).to_have_count(0)
    expect(page.get_by_text(re.compile("faulted in"))).to_have_count(0)
    page.get_by_role("button", name="Log out bob").click()
    visit.audit()

    log_in(visit, "alice")
    visit.go(f"/bots/{bot.pk}/")
    notice = page.get_by_role("region", name=re.compile("v1 was taken off the ladder"))
    expect(notice).to_contain_text("v1 faulted in 3 of its last 3 rated matches")
    expect(notice).to_contain_text("crashing on purpose at the first move")  # its stderr
    step = notice.get_by_role("link", name=re.compile(r"match \d+, game 1, step \d+"))
    expect(step).to_have_attribute("href", re.compile(r"/matches/\d+/#g1s\d+$"))
    visit.check("fault-notice")

    step.click()
    expect(page.get_by_role("region", name="Replay")).to_be_visible()
    assert re.search(r"#g1s\d+$", page.url)
    page.get_by_text("The raw observation and legal actions").click()
    expect(page.locator("#rv-raw")).to_contain_text('"legal"')  # what the bot was offered
    visit.audit()

    visit.go(f"/bots/{bot.pk}/")
    page.get_by_role("button", name="Put v1 back on the ladder").click()
    expect(page.get_by_role("status")).to_contain_text("v1 is back on the ladder.")
    expect(page.get_by_role("region", name=re.compile("taken off the ladder"))).to_have_count(0)
    visit.audit()
    crasher.refresh_from_db()
    assert crasher.off_ladder_at is None
