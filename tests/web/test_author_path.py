"""The bot author's path (issue 34), in a real browser at 1280 and 390 px with axe: a check
report to act on, the form that names every language, standings in one order, a bot page
whose matches are named and whose code is reachable by keyboard, a tournament page that
drops its cancel button when it ends, and a sign-up error box that counts right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from sandbox.runtimes import RUNTIMES
from tests.web.conftest import (
    Visit,
    log_in,
    make_user,
    played_tournament,
    quick_bot,
    uploaded_bot,
)
from tournaments.models import Match, Seat
from tournaments.play import tasks, version_checks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]

#: A bot that answers hello, then crashes at its second decision.
CRASHER = """\
import json, sys
asked = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        asked += 1
        if asked == 2:
            {}["missing-key-of-the-crash"]
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        break
"""


#: Where an element's text wraps to a new line other than after a - _ . (a mid-word break).
MID_WORD_BREAKS = """(element) => {
  const chars = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      chars.push([node.data[i], range.getBoundingClientRect().top]);
    }
  }
  const breaks = [];
  for (let i = 1; i < chars.length; i++) {
    const wrapped = chars[i][1] > chars[i - 1][1] + 2;
    if (wrapped && !"-_. ".includes(chars[i - 1][0]) && chars[i][0] !== " ") breaks.push(i);
  }
  return breaks;
}"""


def upload(visit: Visit, tmp_path: Path, name: str, source: str) -> None:
    page = visit.page
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    visit.go("/bots/upload/")
    page.get_by_label("Game").select_option("bigtwo")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Bot code").set_input_files(str(path))
    page.get_by_role("button", name="Upload").click()


def test_the_upload_form_names_every_language_it_offers(visit: Visit) -> None:
    make_user("ada")
    log_in(visit, "ada")
    visit.go("/bots/upload/")
    help_text = visit.page.locator("#field-code")
    for runtime in RUNTIMES.values():
        expect(help_text).to_contain_text(runtime.title)
    expect(help_text).to_contain_text("Java: Main.java")
    expect(help_text).not_to_contain_text(".py or .zip only")
    visit.check("upload-form")


def test_a_rejected_versions_report_counts_from_one_names_opponents_and_clocks(
    visit: Visit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = visit.page
    waiting: list[int] = []
    monkeypatch.setattr(
        version_checks.check_version, "apply_async", lambda args, **_: waiting.append(*args)
    )
    make_user("ada")
    log_in(visit, "ada")
    upload(visit, tmp_path, "crasher", CRASHER)
    expect(page.locator("#verdict")).to_have_text("pending")
    version_checks.check_version(waiting.pop())
    expect(page.locator("#verdict")).to_have_text("rejected")
    reason = page.locator(".reason")
    expect(reason).to_contain_text(
        re.compile(r"crashed \(with \d players, seat \d, game 1, step \d")
    )
    expect(reason).to_contain_text("missing-key-of-the-crash")
    items = page.locator("ol.check-matches > li")
    expect(items).to_have_count(3)  # Big Two: 2, 3 and 4 players
    for index, players in enumerate((2, 3, 4)):
        item = items.nth(index)
        expect(item).to_contain_text(
            re.compile(rf"^{players} players: your bot in seat [1-{players}]")
        )
        opponents = item.get_by_role("link", name="house:random")
        expect(opponents).to_have_count(players - 1)
        expect(opponents.first).to_have_attribute("href", re.compile(r"/docs/bots/#house-bots$"))
        expect(item.locator(".fault")).to_contain_text(re.compile(r"crashed \(.*game 1, step"))
        expect(item.locator(".fault")).not_to_contain_text("Traceback")  # said once, above
    expect(page.get_by_text(re.compile(r"\d+ s to start, \d+(\.\d+)? s a move"))).to_be_visible()
    assert page.locator(".reason").inner_text().count("Traceback") == 1
    visit.check("check-report-rejected")

    # Each check game has its replay: the deal where it crashed, in the match viewer.
    items.nth(0).get_by_role("link", name="replay of check game 1").click()
    expect(page.get_by_role("heading", name=re.compile("^Check game 1"))).to_be_visible()
    expect(page.locator(".fault")).to_contain_text(re.compile(r"crashed \(with 2 players"))
    step = re.search(r"#g1s(\d+)$", page.url)  # opened at the fault, not at step 1
    assert step, page.url
    expect(page.locator(".fault a")).to_have_attribute("href", f"#g1s{step.group(1)}")
    expect(page.locator("#rv-counter")).to_contain_text(re.compile(r"\d+ of \d+"))
    expect(page.locator("#rv-moves li").first).to_be_visible()
    visit.check("check-game-replay")
    address = page.url.split("#")[0]  # the viewer keeps its step in the fragment
    record = page.request.get(address + "?download=1").json()
    assert record["header"]["players"] == 2 and record["faults"]
    version_url = page.get_by_role("link", name=re.compile("^crasher v1")).get_attribute("href")
    assert version_url is not None
    page.context.clear_cookies()  # signed out: nobody else sees it
    assert page.request.get(address).status == 404


def test_standings_are_ordered_by_what_they_show_and_say_so_on_a_phone(
    visit: Visit, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = visit.page
    queued: list[int] = []
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda args, **_: queued.append(*args))
    ada = make_user("ada")
    log_in(visit, "ada")
    for name in ("first-bot", "second-bot"):
        uploaded_bot(ada, "oceans11", name)
    visit.go("/tournaments/new/?game=oceans11")
    page.get_by_label("Name").fill("Ada's cup")
    page.get_by_label(re.compile("first-bot v1")).check()
    page.get_by_label(re.compile("second-bot v1")).check()
    page.get_by_label("house: greedy").check()
    page.get_by_label("Games per pairing").fill("1")
    page.get_by_role("button", name="Create and start").click()
    cancel = page.get_by_role("button", name="Cancel the queued matches")
    expect(cancel).to_be_visible()
    page.evaluate("window.notReloaded = true")
    visit.audit()
    while queued:  # the scheduler sends more as each one finishes
        tasks.play_match(queued.pop(0))  # the page follows without being reloaded
    expect(page.locator("#tournament-status")).to_have_text("finished")
    expect(cancel).to_have_count(0)  # gone with the live part, no reload
    assert page.evaluate("window.notReloaded") is True
    points = [
        float(p) for p in page.locator("table.standings tbody td:nth-child(3)").all_inner_texts()
    ]
    assert points == sorted(points, reverse=True)
    note = page.locator("#standings-order")
    expect(note).to_contain_text("Ordered by points")
    expect(note).to_contain_text("Elo counts games")
    expect(page.get_by_role("columnheader", name=re.compile("^Elo, by games"))).to_be_visible()
    visit.check("standings")
    page.set_viewport_size({"width": 390, "height": 844})
    assert "column" not in note.inner_text()  # the global rating's column is hidden here
    expect(page.get_by_role("columnheader", name=re.compile("^Global rating"))).to_be_hidden()


def test_the_bot_page_names_quick_matches_keeps_names_whole_and_its_code_reachable(
    visit: Visit,
) -> None:
    page = visit.page
    ada = make_user("ada")
    mine = uploaded_bot(ada, "bigtwo", "deep_thought_the_second")
    rival = quick_bot(None, "bigtwo", "another_rather_long_rival")
    match = Match.objects.create(
        game="bigtwo", status=Match.Status.DONE, rated=False, requested_by=ada,
        started_at=timezone.now(), finished_at=timezone.now(), result={"places": [1, 2]},
    )  # fmt: skip
    Seat.objects.bulk_create([Seat(match=match, index=0, version=mine),
                              Seat(match=match, index=1, version=rival)])  # fmt: skip
    log_in(visit, "ada")
    visit.go(f"/bots/{mine.bot_id}/")
    row = page.locator("table.matches tbody tr").first
    expect(row.locator("td").first).to_have_text("quick match")
    expect(page.locator("table.matches")).not_to_contain_text("#0")
    code = page.locator("pre.code").first
    expect(code).to_contain_text("SECRET-CODE")
    code.focus()
    expect(code).to_be_focused()  # reachable by keyboard: it scrolls
    visit.check("bot-page-with-code")
    page.set_viewport_size({"width": 390, "height": 844})
    for name in ("deep_thought_the_second", "another_rather_long_rival"):
        link = page.locator("table.matches").get_by_role("link", name=name)
        assert link.evaluate(MID_WORD_BREAKS) == [], f"{name} is split inside a word at 390 px"
    assert page.locator("h1").evaluate(MID_WORD_BREAKS) == []


def test_the_bot_page_shows_head_to_head_and_a_dated_chart_with_its_band(visit: Visit) -> None:
    page = visit.page
    ada = make_user("ada")
    mine = quick_bot(ada, "bigtwo", "ada-bot", policy="greedy")
    rivals = [quick_bot(None, "bigtwo", name) for name in ("rival-one", "rival-two")]
    played_tournament(ada, "bigtwo", [mine, *rivals], table_size=2, games_per_pairing=2)
    played_tournament(ada, "bigtwo", [mine, *rivals], table_size=3, seed=12)
    visit.go(f"/bots/{mine.bot_id}/")
    rows = page.locator("table.h2h-opponents tbody tr")
    expect(rows).to_have_count(2)
    for index in range(2):
        cells = rows.nth(index).locator("td").all_inner_texts()
        assert cells[0] in {"rival-one", "rival-two"}
        assert sum(int(n) for n in cells[1].split("–")) == 2  # a pairing, a 3-seat match
        assert re.fullmatch(r"[+-]\d+ \[[+-]\d+, [+-]\d+\]", cells[2]), cells[2]
        assert re.fullmatch(r"\d+%", cells[3]), cells[3]
    dates = page.locator(".chart-dates span").all_inner_texts()
    assert len(dates) == 2 and all(re.fullmatch(r"\d{4}-\d\d-\d\d", day) for day in dates)
    expect(page.locator(".chart-scale span")).to_have_count(3)
    band = page.locator("svg.chart polygon.band")  # each sample's interval, along the line
    expect(band).to_have_count(1)
    line, edges = (
        page.locator("svg.chart polyline").get_attribute("points"),
        band.get_attribute("points"),
    )
    assert line and edges and len(edges.split()) == 2 * len(line.split())
    expect(page.locator("svg.chart")).to_have_attribute("aria-label", re.compile(r"between \d{4}"))
    visit.check("bot-page-head-to-head")


def test_the_signup_error_box_counts_every_error(visit: Visit) -> None:
    page = visit.page
    visit.go("/accounts/signup/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password", exact=True).fill("12345")
    page.get_by_label("Password confirmation").fill("12345")
    page.get_by_role("button", name="Create my account").click()
    summary = page.locator("#error-summary")
    expect(summary).to_be_focused()
    errors = summary.locator("li").count()
    assert errors >= 2
    expect(summary).to_contain_text(f"{errors} things to fix")
    visit.check("signup-errors")
