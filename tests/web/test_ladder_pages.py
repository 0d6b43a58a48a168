"""The ladder on the pages: the leaderboard says whether it plays and marks the bots on it;
a bot page says whether the bot is on it and lists its ladder games once, with its others."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.web.conftest import Visit, quick_bot
from tournaments.api import actions
from tournaments.competitions import competition_actions, ladder
from tournaments.models import Match
from tournaments.play import dispatch

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.usefixtures("fast_matches")
def test_ladder_bots_are_marked_and_their_pages_list_their_ladder_games(
    visit: Visit, settings: SettingsWrapper
) -> None:
    # Played here, in this process; settled once both deviations are below 320.
    settings.LADDER_ENABLED, settings.LADDER_TARGET_DEVIATION = True, 320.0
    first = quick_bot(None, "oceans11", "ladder-first")
    quick_bot(None, "oceans11", "ladder-second")
    dispatch.dispatch()
    played = ladder.ladder_matches().filter(status=Match.Status.DONE)
    assert played.count() >= 1
    page = visit.page

    visit.go("/leaderboard/oceans11/")
    expect(page.locator(".ladder-status")).to_contain_text("Ladder: playing")
    row = page.locator("table.board tbody tr", has_text="ladder-first")
    expect(row.locator(".badge.ladder")).to_have_text("ladder")
    visit.audit()

    row.get_by_role("link", name="ladder-first").click()
    expect(page.get_by_text(re.compile("On the Oceans 11 ladder with v1"))).to_be_visible()
    # Listed once: with its other matches, each ladder match marked.
    games = page.locator("h2#matches + div table.matches tbody tr")
    expect(games).to_have_count(played.count())
    expect(games.first.locator("td").first).to_have_text("ladder")
    expect(page.locator("table.matches")).to_have_count(1)
    visit.audit()

    competition_actions.pause_ladder("oceans11")
    visit.go("/leaderboard/oceans11/")
    expect(page.locator(".ladder-status")).to_contain_text("paused by the operators")
    expect(page.locator(".badge.ladder")).to_have_count(0)

    competition_actions.pause_ladder("oceans11", paused=False)
    actions.retire_bot(first.bot)
    visit.go(f"/bots/{first.bot_id}/")
    expect(page.get_by_text("Not on the ladder (retired).")).to_be_visible()
