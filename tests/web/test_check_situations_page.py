"""The check report of a bot that crashes only in some positions (issue 46), in the
browser: rejected, the reason naming the situation, each situation the check met listed
with how often, the faulting match's replay opened at the faulting step; audited at
desktop and phone size."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from judge.games import game_class
from tests.tournaments.test_check_situations import CASES, situational
from tests.web.conftest import Visit, log_in, make_user
from tests.web.test_author_path import upload
from tournaments.play import version_checks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def test_a_bot_that_crashes_only_on_pairs_is_rejected_with_the_position(
    visit: Visit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = visit.page
    waiting: list[int] = []
    monkeypatch.setattr(
        version_checks.check_version, "apply_async", lambda args, **_: waiting.append(*args)
    )
    make_user("ada")
    log_in(visit, "ada")
    upload(visit, tmp_path, "pair-crasher", situational(CASES["bigtwo-pair"]))
    expect(page.locator("#verdict")).to_have_text("pending")
    version_checks.check_version(waiting.pop())
    expect(page.locator("#verdict")).to_have_text("rejected")
    said = game_class("bigtwo").situations["follow-pair"]
    reason = page.locator(".reason")
    expect(reason).to_contain_text(re.compile(r"crashed \(with \d players, seat \d, game \d+, "
                                              rf"step \d+\), {re.escape(said)}"))  # fmt: skip
    expect(reason).to_contain_text("RuntimeError: cannot handle this: follow-pair")
    situations = page.locator("ul.check-situations > li")
    expect(situations).to_have_count(len(game_class("bigtwo").situations))
    expect(situations.filter(has_text=said)).to_contain_text(re.compile(r": [1-9]\d* times?"))
    visit.check("check-report-situational")

    faulted = page.locator("ol.check-matches > li").filter(has=page.locator(".fault"))
    expect(faulted.first.locator(".fault")).to_contain_text(said)
    faulted.first.get_by_role("link", name=re.compile(r"^replay of check game \d+")).click()
    assert re.search(r"#g\d+s\d+$", page.url), page.url  # opened at the fault
    # The page's own fault lines (strong.fault) name the situation; the viewer, once its
    # script has run, shows the fault at its step too (div#rv-fault, also of class fault:
    # a bare ".fault" matched both as soon as the script was quicker than the check).
    expect(page.locator("strong.fault", has_text=said).first).to_be_visible()
    expect(page.locator("#rv-fault")).to_be_visible()
    visit.check("check-replay-situational")
