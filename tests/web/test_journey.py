"""A new user's first hour, in a real browser: sign up, upload, check, tournament, replay."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from rest_framework.authtoken.models import Token

from tests.web.conftest import SECRET_CODE, SECRET_LOG, Visit, player_source
from tournaments.models import Match, Tournament
from tournaments.play import tasks, version_checks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def test_a_new_user_uploads_a_bot_runs_a_round_robin_and_studies_a_replay(
    visit: Visit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = visit.page
    queued: list[int] = []  # matches wait here, as in a broker, until the test plays them
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda args, **_: queued.append(*args))
    checks_waiting: list[int] = []  # and so do checks
    monkeypatch.setattr(
        version_checks.check_version, "apply_async", lambda args, **_: checks_waiting.append(*args)
    )
    visit.go("/")
    visit.shot("01-home")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase-42")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase-42")
    visit.shot("02-signup")
    page.get_by_role("button", name="Create my account").click()

    expect(page.get_by_role("heading", name="Upload a bot")).to_be_visible()
    visit.audit()
    broken = tmp_path / "broken.py"
    broken.write_text("def play(:\n")
    page.get_by_label("Game").select_option("oceans11")
    page.get_by_label("Name").fill("ada-bot")
    page.get_by_label("Bot code").set_input_files(str(broken))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("alert")).to_contain_text("main.py line 1: syntax error")
    visit.shot("03-upload-error")

    good = tmp_path / "ada.py"
    good.write_text(player_source())
    page.get_by_label("Bot code").set_input_files(str(good))
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#verdict")).to_have_text("pending")
    visit.shot("04-version-pending")
    version_checks.check_version(checks_waiting.pop())  # the page follows without being reloaded
    expect(page.locator("#verdict")).to_have_text("accepted")
    expect(page.locator(".reason")).to_contain_text("every check passed")
    visit.shot("05-version-checked")

    visit.go("/tournaments/new/?game=oceans11")
    page.get_by_label("Name").fill("Ada's first cup")
    page.get_by_label(re.compile("ada-bot v1")).check()
    page.get_by_label("house: random").check()
    page.get_by_label("house: greedy").check()
    page.get_by_label("Games per pairing").fill("1")
    visit.shot("06-tournament-create")
    page.get_by_role("button", name="Create and start").click()
    expect(page.locator("#tournament-status")).to_have_text("running")
    expect(page.locator("#progress-text")).to_have_text("0 of 3 matches")
    visit.shot("07-tournament-running")
    for done, match_id in enumerate(queued, start=1):
        tasks.play_match(match_id)  # the page follows without being reloaded
        expect(page.locator("#progress-text")).to_have_text(f"{done} of 3 matches")
    expect(page.locator("#tournament-status")).to_have_text("finished")
    expect(page.locator("#progress-text")).to_have_text("3 of 3 matches")
    expect(page.locator("table.standings tbody tr")).to_have_count(3)
    visit.shot("08-tournament-finished")

    page.get_by_role("link", name="Oceans 11").first.click()
    expect(page.locator("table.board")).to_contain_text("ada-bot")
    expect(page.locator("table.board")).to_contain_text("provisional")  # a few games each
    expect(page.locator("table.board td.num small").first).to_have_text(re.compile(r"\[\d+, \d+\]"))
    visit.shot("09-leaderboard")

    page.get_by_role("link", name="ada-bot").first.click()
    expect(page.locator("svg.chart")).to_be_visible()
    visit.shot("10-bot-page")

    tournament = Tournament.objects.get(name="Ada's first cup")
    match = Match.objects.filter(tournament=tournament, seats__version__bot__name="ada-bot")[0]
    visit.go(f"/matches/{match.pk}/")
    step_through_as_two_seats(visit)

    page.get_by_role("link", name="Tournaments").click()
    expect(page.get_by_role("link", name="Ada's first cup")).to_be_visible()
    visit.shot("14-tournaments")
    page.get_by_role("link", name="API token").click()
    expect(page.get_by_role("button", name="Make a token")).to_be_visible()
    visit.audit()
    page.get_by_role("button", name="Make a token").click()
    key = page.get_by_label("Token").input_value()
    assert key == Token.objects.get(user__username="ada").key
    visit.shot("15-token")

    page.get_by_role("button", name=re.compile("Log out")).click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    visit.audit()
    page.get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("a-long-pass-phrase-42")
    visit.shot("16-login")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out ada")).to_be_visible()
    expect(page.get_by_role("link", name="ada-bot")).to_be_visible()  # "Your bots"
    visit.shot("17-home-signed-in")

    page.get_by_role("button", name="Log out ada").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    visit.audit()
    page.get_by_role("link", name="Oceans 11").first.click()
    expect(page.locator("table.board")).to_contain_text("ada-bot")
    visit.audit()
    page.get_by_role("link", name="ada-bot").click()
    expect(page.get_by_role("heading", name="Versions")).to_be_visible()
    text = page.content()
    assert SECRET_CODE not in text and SECRET_LOG not in text
    expect(page.locator(".private")).to_have_count(0)
    visit.shot("18-bot-page-visitor")


def step_through_as_two_seats(visit: Visit) -> None:
    page = visit.page
    counter = page.locator("#rv-counter")
    expect(counter).to_have_text(re.compile(r"step 1 of \d+"))
    total = int(re.search(r"of (\d+)", counter.inner_text()).group(1))  # type: ignore[union-attr]
    expect(page.locator("#rv-table .card").first).to_be_visible()
    visit.shot("11-replay-all-cards")
    for seat in ("0", "1"):
        page.locator("#rv-seat").select_option(seat)
        # The seat's frames are fetched ("loading…" until then): act on them, not the old.
        expect(counter).to_have_text(re.compile(r"step \d+ of \d+"))
        expect(page.locator(".seat-box.viewer-seat")).to_have_count(1)
        page.locator("#rv-decision").click()  # the seat's next decision
        step = page.locator("#rv-step")
        if "Legal actions" not in step.inner_text():  # its first decision was step 1
            page.locator("#rv-first").click()
        expect(step).to_contain_text("Legal actions")
        expect(step.locator(".chosen")).to_have_count(1)
        expect(step).to_contain_text(re.compile(r"in \d+(\.\d+)? (s|ms|µs)|fallback"))
        visit.shot(f"12-replay-seat-{seat}")
        page.locator("#rv-next").focus()
        before = counter.inner_text()
        page.keyboard.press("ArrowRight")
        expect(counter).not_to_have_text(before)
        page.keyboard.press("ArrowLeft")
        expect(counter).to_have_text(before)
    page.keyboard.press("End")
    expect(counter).to_have_text(f"end of game ({total} steps)")
    expect(page.locator("#rv-step")).to_contain_text("Game over")
    visit.shot("13-replay-end")
    page.keyboard.press("Home")
    expect(counter).to_have_text(f"step 1 of {total}")
