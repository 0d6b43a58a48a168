"""A duel's page in a real browser (issue 35): the owner sees the LLR chart, B's score, the
Elo estimate and the decision; cancels a running duel from it; nobody else sees it."""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.test import Client
from playwright.sync_api import expect

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
    expect(page.locator("#duel-estimate")).to_have_text(re.compile(r"Elo, 95% interval \["))
    chart = page.get_by_role("img", name=re.compile(r"LLR after \d+ games"))
    expect(chart).to_be_visible()
    expect(page.get_by_role("button", name="Cancel this duel")).to_have_count(0)
    rounds = len(duel.state["history"])
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
