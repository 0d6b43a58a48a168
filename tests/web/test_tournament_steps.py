"""Creating a tournament on the web, as its two steps: the game first (or the bot's, from
"Enter it in a tournament", with that bot ticked), then the form with a name ready, only
accepted versions offered, an estimate of the matches and their duration that follows the
form, and what is wrong summed up at the top."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.conftest import Visit, log_in, make_user, played_tournament, quick_bot
from tournaments.bots import bot_actions
from tournaments.models import BotVersion, Tournament, bundle_code
from tournaments.web.tournament_views import default_name

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def version(bot_name: str, owner: object, status: str, number: int = 1) -> BotVersion:
    """A version of the user's Big Two bot ``bot_name`` with the given check verdict."""
    found = bot_actions.create_bot(owner, "bigtwo", bot_name) if number == 1 else None  # type: ignore[arg-type]
    bot = found or BotVersion.objects.get(bot__name=bot_name, number=number - 1).bot
    code, digest = bundle_code({"main.py": f"# {bot_name} v{number}\n".encode()})
    return bot_actions.add_version(bot, code, digest, status)


def test_enter_it_in_a_tournament_ticks_the_bot_names_it_and_estimates_the_work(
    visit: Visit,
) -> None:
    ada = make_user("ada")
    mine = version("ada-bot", ada, BotVersion.Status.ACCEPTED)
    version("broken", ada, BotVersion.Status.REJECTED)
    version("fixed", ada, BotVersion.Status.ACCEPTED)
    fixed_v2 = version("fixed", ada, BotVersion.Status.REJECTED, number=2)
    pace = [quick_bot(None, "bigtwo", f"pace-{i}") for i in range(2)]
    played_tournament(None, "bigtwo", pace, table_size=2)  # recent games set the pace
    page = visit.page
    log_in(visit, "ada")

    visit.go(f"/versions/{fixed_v2.pk}/")
    steps = page.locator("#next-steps")
    expect(steps).to_contain_text("a rejected version cannot enter tournaments")
    expect(steps.get_by_role("link", name="Enter it in a tournament")).to_have_count(0)

    visit.go(f"/versions/{mine.pk}/")
    page.get_by_role("link", name="Enter it in a tournament").click()
    expect(page.get_by_role("list", name="Steps")).to_contain_text("1. The game: Big Two")
    expect(page.get_by_role("checkbox", name=re.compile("^ada-bot v1"))).to_be_checked()
    expect(page.get_by_role("checkbox", name=re.compile("^fixed v1"))).not_to_be_checked()
    expect(page.get_by_role("checkbox", name=re.compile("^fixed v2"))).to_have_count(0)
    expect(page.get_by_role("checkbox", name=re.compile("^broken"))).to_have_count(0)
    expect(page.get_by_label("Name")).to_have_value(default_name("bigtwo"))
    estimate = page.locator("#estimate")
    expect(estimate).to_contain_text("Tick at least")
    visit.check("form-from-version")

    page.get_by_label("Players at a table").select_option("2")
    page.get_by_label("house: random").check()
    expect(estimate).to_contain_text("1 match among 2 entrants, 4 games in all: about")
    page.get_by_label("Duplicate").uncheck()
    expect(estimate).to_contain_text("1 match among 2 entrants, 2 games in all")
    page.get_by_role("checkbox", name=re.compile("^fixed v1")).check()
    page.get_by_label("Rounds").fill("2")
    expect(estimate).to_contain_text("6 matches among 3 entrants, 12 games in all")
    expect(estimate).to_contain_text(re.compile(r"Big Two games lately took \d+\.\d s each"))
    visit.shot("form-estimate")

    # Mistakes the browser cannot catch (it checks the bounds of a field by itself).
    page.get_by_label("Players at a table").select_option("4")
    page.get_by_label("Game options (JSON)").fill("{bad")
    page.get_by_role("button", name="Create and start").click()
    summary = page.locator("#error-summary")
    expect(summary).to_be_focused()
    expect(summary).to_contain_text("2 things to fix")
    expect(
        summary.get_by_role("link", name="Participants: a table of 4 needs at least 4 participants")
    ).to_be_visible()
    box = summary.bounding_box()
    first_field = page.locator("#field-name").bounding_box()
    assert box is not None and first_field is not None and box["y"] < first_field["y"]
    visit.check("form-errors")
    summary.get_by_role("link", name=re.compile("^Game options")).click()
    expect(page).to_have_url(re.compile("#field-options$"))
    assert not Tournament.objects.filter(owner=ada).exists()

    page.get_by_label("Name").fill("Ada's cup")
    page.get_by_label("Players at a table").select_option("2")
    page.get_by_label("Game options (JSON)").fill("")
    page.get_by_role("button", name="Create and start").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Ada's cup")
    visit.audit()
    entered = Tournament.objects.get(name="Ada's cup").participants.all()
    assert {v.bot.name for v in entered} == {"ada-bot", "fixed", "house:random"}


def test_the_game_is_the_first_step(visit: Visit) -> None:
    make_user("bea")
    page = visit.page
    log_in(visit, "bea")
    visit.go("/tournaments/new/")
    expect(page.get_by_role("list", name="Steps")).to_contain_text("1. The game")
    expect(page.get_by_label(re.compile("Name"))).to_have_count(0)  # no form before the game
    visit.check("choose-the-game")
    page.get_by_label(re.compile("Fifteen Thirty-Five")).check()
    page.get_by_role("button", name="Next: entrants and settings").click()
    expect(page.get_by_role("list", name="Steps")).to_contain_text("Fifteen Thirty-Five")
    expect(page.get_by_label("Name")).to_have_value(default_name("fifteen35"))
    page.get_by_label("Players at a table").select_option("2")
    page.get_by_label("house: random").check()
    page.get_by_label("house: greedy").check()
    expect(page.locator("#estimate")).to_contain_text(
        "1 match among 2 entrants, 4 games in all; no Fifteen Thirty-Five game has been timed"
    )
    visit.audit()
    page.get_by_role("link", name="change").click()
    expect(page.get_by_role("radio", name=re.compile("Oceans 11"))).to_be_visible()
    visit.audit()
