"""A duel's page in a real browser (issue 35): the owner sees the LLR chart, B's score, the
Elo estimate and the decision; cancels a running duel from it; nobody else sees it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from playwright.sync_api import expect

from judge.duel.state import DuelState
from tests.tournaments.conftest import redis_broker  # noqa: F401 (a fixture)
from tests.web.conftest import Visit, log_in, make_user, quick_bot
from tournaments.bots import bot_actions
from tournaments.competitions import duels
from tournaments.competitions.duels import DuelRequest
from tournaments.models import Duel, Match

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def test_the_owner_reads_a_decided_duel_and_nobody_else_does(visit: Visit) -> None:
    owner, other = make_user("ada"), make_user("bob")
    b = quick_bot(owner, "oceans11", "challenger", policy="greedy")
    a = bot_actions.house_version("oceans11", "random")
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a, elo1=300, pairs_per_round=5, seed=2))
    duel.refresh_from_db()
    assert duel.status == Duel.Status.DECIDED  # played in this process after commit

    log_in(visit, "ada")
    page = visit.page
    visit.go(f"/duels/{duel.pk}/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("challenger v1 against")
    expect(page.locator("#duel-said")).to_have_text(re.compile(r"^H1 accepted: B is stronger"))
    share = round(100 * DuelState.from_json(duel.state).penta.mean())
    expect(page.locator("#duel-sentence")).to_have_text(
        f"challenger v1 scores {share}% against house:random v1: stronger, with a 5% chance "
        f"that this call is wrong (after {duel.state['games']} games)."
    )
    # The chart runs to the games played, not to the 4,000-game cap.
    expect(page.locator("svg.llr-chart")).to_contain_text(f"{duel.state['games']} games")
    expect(page.locator("svg.llr-chart")).not_to_contain_text("4000 games")
    expect(page.locator("#duel-estimate")).to_have_text(re.compile(r"Elo, 95% interval \["))
    chart = page.get_by_role("img", name=re.compile(r"LLR after \d+ games"))
    expect(chart).to_be_visible()
    expect(page.get_by_role("button", name="Cancel this duel")).to_have_count(0)
    rounds = duel.matches.values("duel_round").distinct().count()  # with those cancelled
    expect(page.get_by_role("link", name=re.compile(r"^match \d+$"))).to_have_count(
        min(12, 2 * rounds)
    )
    visit.check("duel-decided")
    page.get_by_role("link", name="All duels").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Duels")
    expect(page.get_by_role("link", name=f"#{duel.pk}")).to_be_visible()
    visit.check("duel-list")

    outsider, anonymous = Client(), Client()
    outsider.force_login(other)
    assert outsider.get(f"/duels/{duel.pk}/").status_code == 404
    assert outsider.post(f"/duels/{duel.pk}/cancel/").status_code == 404
    assert anonymous.get(f"/duels/{duel.pk}/").status_code == 404
    for stranger in (outsider, anonymous):  # the list holds only theirs and the house's
        assert f"/duels/{duel.pk}/" not in stranger.get("/duels/").content.decode()

    # The owner's bot page lists the duel's matches as its rounds, counted from 1 (they
    # were "quick match" then "quick match #2", #3...: the match's number, 2 per round).
    mine = Client()
    mine.force_login(owner)
    listed = mine.get(f"/bots/{b.bot_id}/").content.decode()
    assert f'/duels/{duel.pk}/">duel #{duel.pk}</a>, round 1</td>' in listed
    assert "<td>quick match" not in listed and "round 0" not in listed
    first = duel.matches.order_by("id").first()
    assert first is not None
    heading = mine.get(f"/matches/{first.pk}/").content.decode()
    assert f">duel #{duel.pk}</a>, round 1, first seating" in heading


@pytest.mark.usefixtures("redis_broker")
def test_the_owner_cancels_a_running_duel_from_its_page(visit: Visit) -> None:
    owner = make_user("ada")
    b = quick_bot(owner, "oceans11", "challenger", policy="greedy")
    a = bot_actions.house_version("oceans11", "random")
    with transaction.atomic():  # no worker takes the tasks: the first round stays queued
        duel = duels.create_duel(owner, DuelRequest(b=b, a=a))

    log_in(visit, "ada")
    page = visit.page
    visit.go(f"/duels/{duel.pk}/")
    expect(page.locator("#duel-status")).to_have_text("running")
    expect(page.locator("#duel-said")).to_have_text(re.compile(r"^running: LLR \+0\.00"))
    visit.check("duel-running")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Cancel this duel").click()  # asked, and declined
    expect(page.get_by_role("button", name="Cancel this duel")).to_be_enabled()
    assert asked and "Cancel this duel?" in asked[0]
    assert Duel.objects.get(pk=duel.pk).status == Duel.Status.RUNNING
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Cancel this duel").click()
    expect(page.locator("#duel-status")).to_have_text("cancelled")
    expect(page.get_by_role("status")).to_contain_text("Duel cancelled")
    expect(page.get_by_role("button", name="Cancel this duel")).to_have_count(0)
    visit.audit()
    assert set(Match.objects.values_list("status", flat=True)) == {Match.Status.CANCELLED}


@pytest.mark.usefixtures("redis_broker")  # no worker takes the rounds: the duel waits
def test_the_owner_asks_from_the_bot_page_whether_a_version_is_stronger(visit: Visit) -> None:
    """Issue 46: the bot page's "Is this version stronger than that one?" starts a duel
    through the API's action; the answer is a sentence; others see no form."""
    owner = make_user("ada")
    make_user("bob")
    first = quick_bot(owner, "oceans11", "ada-bot", policy="greedy")
    second = bot_actions.add_version(first.bot, b"v2", "v2-digest", "accepted")
    log_in(visit, "ada")
    page = visit.page
    visit.go(f"/bots/{first.bot_id}/")
    form = page.locator("form.duel-form")
    expect(form.get_by_label("Is this version")).to_have_value(f"v{second.pk}")
    form.get_by_label("stronger than").select_option(f"v{second.pk}")  # itself: refused
    form.get_by_role("button", name="Start the duel").click()
    expect(page.locator("#error-summary")).to_contain_text("choose a different version")
    visit.check("duel-form-refused")
    form = page.locator("form.duel-form")
    form.get_by_label("stronger than").select_option("house:random")
    form.get_by_label("Games at most").select_option("200")
    form.get_by_role("button", name="Start the duel").click()
    page.wait_for_url(re.compile(r"/duels/\d+/$"))
    duel = Duel.objects.get()
    assert (duel.b_id, duel.owner_id, duel.state["test"]["max_games"]) == (
        second.pk,
        owner.pk,
        200,
    )
    expect(page.locator("#duel-sentence")).to_have_text(
        "Is ada-bot v2 stronger than house:random v1? No game is over yet."
    )
    visit.check("duel-from-bot-page")
    page.get_by_role("link", name="All duels").click()
    expect(page.locator("table.duel-list")).to_contain_text("v2 against house:random v1")
    visit.check("duel-list-stacked")
    bob = Client()
    bob.force_login(User.objects.get(username="bob"))
    assert "duel-form" not in bob.get(f"/bots/{first.bot_id}/").content.decode()
    assert bob.get(f"/bots/{first.bot_id}/duel/").status_code == 404
    assert bob.post(f"/bots/{first.bot_id}/duel/", {"b": f"v{second.pk}"}).status_code == 404
