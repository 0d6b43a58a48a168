"""Issue 46's walk in a real browser, every page audited by axe and reviewed at 1280 and
390 px (visit.check): the home page leading to each game's ladder, tables, now playing
and duels; a tournament whose cancel asks first, resumed from its page, matches numbered
from 1 and no "started" note once finished; an upload refused for a taken name keeping
its file; a person's Big Two table drawn in cards, played from the keyboard alone (the
action's number typed, two digits where a turn offers ten or more); and a bot that faults
only in some positions, taken off the ladder within its first rated matches and shown to
its owner, with the legal actions at the fault's step. The duel from the bot page is
walked in test_duel_page.py."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import redis
from playwright.sync_api import Request, expect

from tests.web.conftest import (
    Visit,
    log_in,
    make_user,
    played_tournament,
    quick_bot,
    uploaded_bot,
)
from tests.web.test_human_table import (  # noqa: F401 (table_redis: a fixture)
    GAMES,
    Worker,
    held_matches,
    play_by_clicking,
    table_redis,
)
from tournaments.bots import bot_actions
from tournaments.models import BotVersion, Match, Tournament, bundle_code
from tournaments.play import tasks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def test_home_tournament_and_upload_steps(visit: Visit, monkeypatch: pytest.MonkeyPatch) -> None:
    page = visit.page
    queued: list[int] = []
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda args, **_: queued.append(*args))
    ada = make_user("ada")
    quick_bot(make_user("bob"), "oceans11", "bobs-bot")
    log_in(visit, "ada")
    visit.go("/")
    tile = page.locator(".tile").filter(has_text="Big Two")
    for name, address in [
        ("ladder", "/leaderboard/bigtwo/"),
        ("play at a table", "/play/bigtwo/"),
        ("now playing", "/now-playing/bigtwo/"),
    ]:
        expect(tile.get_by_role("link", name=name)).to_have_attribute("href", address)
    expect(page.locator("main").get_by_role("link", name="Duels")).to_have_attribute(
        "href", "/duels/"
    )
    visit.check("home")

    for name in ("first-bot", "second-bot"):
        uploaded_bot(ada, "oceans11", name)
    visit.go("/tournaments/new/?game=oceans11")
    page.get_by_label("Name").fill("Ada's cup")
    page.get_by_label(re.compile("first-bot v1")).check()
    page.get_by_label(re.compile("second-bot v1")).check()
    page.get_by_label("Games per pairing").fill("1")
    page.get_by_role("button", name="Create and start").click()
    expect(page.get_by_role("status")).to_contain_text("started")
    visit.audit()
    tournament = Tournament.objects.get()
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Cancel the queued matches").click()
    expect(page.get_by_role("button", name="Cancel the queued matches")).to_be_enabled()
    assert asked and "Cancel every match of Ada's cup" in asked[0]
    assert Tournament.objects.get().status != Tournament.Status.CANCELLED
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Cancel the queued matches").click()
    expect(page.locator("#tournament-status")).to_have_text("cancelled")
    visit.check("tournament-cancelled")
    page.get_by_role("button", name="Resume the tournament").click()
    expect(page.locator("#tournament-status")).to_have_text(re.compile("running|scheduling"))
    expect(page.get_by_role("status")).to_contain_text("Resumed")
    visit.audit()
    while queued:  # the page follows without a reload
        tasks.play_match(queued.pop(0))
    expect(page.locator("#tournament-status")).to_have_text("finished")
    expect(page.get_by_role("status")).to_have_count(0)  # no "started" or "resumed" note
    rows = page.locator("table.matches tbody")
    expect(rows).to_contain_text("#1")
    expect(rows).not_to_contain_text("#0")
    assert Match.objects.filter(tournament=tournament, number=0).exists()
    visit.check("tournament-finished")

    # A name already taken is said to be taken, and the chosen file stays chosen.
    visit.go("/bots/upload/")
    page.get_by_label("Game").select_option("oceans11")
    page.get_by_label("Name").fill("bobs-bot")
    page.get_by_label("Bot code").set_input_files(
        files=[{"name": "main.py", "mimeType": "text/x-python", "buffer": b"print(1)\n"}]
    )
    page.get_by_role("button", name="Upload").click()
    summary = page.locator("#error-summary")
    expect(summary).to_contain_text("the name 'bobs-bot' is taken: bob has")
    expect(summary).not_to_contain_text("looks like")
    expect(summary).to_be_focused()
    names = page.locator("input[type=file]").evaluate("input => [...input.files].map(f => f.name)")
    assert names == ["main.py"]
    visit.check("upload-name-taken")
    page.get_by_label("Name").fill("third-bot")
    page.get_by_role("button", name="Upload").click()
    page.wait_for_url(re.compile(r"/versions/\d+/$"))
    visit.audit()
    assert BotVersion.objects.filter(bot__name="third-bot").count() == 1


#: The seed of the keyboard walk's Big Two table: its first turn offers 21 actions.
KEYBOARD_SEED = 1


def test_a_big_two_table_in_cards_played_from_the_keyboard(
    visit: Visit,
    table_redis: redis.Redis,  # noqa: F811 (the fixture)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held_matches(monkeypatch)
    make_user("ada")
    log_in(visit, "ada")
    page = visit.page
    answers: list[dict[str, Any]] = []

    def keep(request: Request) -> None:
        if request.url.endswith("/table/answer/"):
            answers.append(json.loads(request.post_data or "{}"))

    page.on("request", keep)
    monkeypatch.setitem(GAMES, "bigtwo", (None, 2))  # three at the table: 17 cards each
    match, _ = play_by_clicking(visit, "bigtwo")
    # A table draws its seed at random, and a drawn one once offered at most nine actions
    # a turn in a whole game; this one's deal and house bots offer 21, 3, 11, ... (the
    # same each run: the human's choices below are fixed too).
    Match.objects.filter(pk=match.pk).update(seed=KEYBOARD_SEED)
    worker = Worker(match.pk)
    worker.start()
    done = page.locator("#table-done")
    actions = page.locator(".table-action")
    offered: list[int] = []
    typed: list[int] = []
    while not done.is_visible():
        page.wait_for_selector(".table-action, #table-done:not([hidden])", timeout=60_000)
        count = actions.count()
        if not count:
            continue
        if len(offered) == 1:
            expect(page.locator("#table-cards .card").first).to_be_visible()
            visit.check("bigtwo-table")
        # Ten or more: the tenth, by two digits; following: the strongest play, to win the
        # trick and lead again; leading with fewer: the weakest single.
        following = "pass" in actions.first.inner_text()
        chosen = 10 if count >= 10 else count if following else 1
        page.locator("h1").click()  # focus off the buttons: typing anywhere starts the search
        page.keyboard.type(str(chosen))
        said = page.locator("#table-find-said")
        try:
            expect(said).to_contain_text(f"Enter plays {chosen}.", timeout=2_000)
        except AssertionError:  # the question closed meanwhile
            continue
        offered.append(count)
        typed.append(chosen)
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.querySelectorAll('.table-action').length === 0 || "
            "!document.getElementById('table-done').hidden"
        )
    worker.join(timeout=60)
    assert worker.answer == "stored", worker.answer
    assert [a["action"] for a in answers] == [n - 1 for n in typed]
    assert max(offered) >= 10, f"no turn offered ten actions or more: {offered}"
    moves = page.locator("#table-moves")
    expect(moves).to_contain_text("You (seat 1): ")
    expect(moves).to_contain_text(re.compile(r"house:random v1 \(seat [234]\): "))
    expect(moves).not_to_contain_text("seat 0")
    expect(moves.locator(".card").first).to_be_visible()  # actions drawn as cards
    visit.check("bigtwo-table-done")


#: An Oceans 11 bot that plays legally until its third decision of a game, then answers
#: a legal action in capitals, which is not legal: it faults only in some positions, and
#: the report names the action it meant and the slip (a wrong case).
SOMETIMES_ILLEGAL = """\
import json, sys
asked = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        game = message["game"]
        asked[game] = asked.get(game, 0) + 1
        if asked[game] >= 3:
            sys.stderr.write("answering a move that is not legal here\\n")
            action = message["legal"][0].upper()
            print(json.dumps({"type": "action", "action": action}), flush=True)
        else:
            print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
"""


def test_a_bot_faulting_only_in_some_positions_is_taken_off_and_shown_to_its_owner(
    visit: Visit,
) -> None:
    owner = make_user("alice")
    make_user("bob")
    bot = bot_actions.create_bot(owner, "oceans11", "sometimes-illegal")
    code, digest = bundle_code({"main.py": SOMETIMES_ILLEGAL.encode()})
    faulty = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
    opponents = [quick_bot(None, "oceans11", f"house-{i}") for i in range(3)]
    played_tournament(owner, "oceans11", [faulty, *opponents])  # three rated matches
    faulty.refresh_from_db()
    assert faulty.off_ladder_at is not None  # within its first 5 rated matches
    page = visit.page
    log_in(visit, "alice")
    visit.go(f"/bots/{bot.pk}/")
    notice = page.get_by_role("region", name=re.compile("v1 was taken off the ladder"))
    expect(notice).to_contain_text(re.compile(r"v1 faulted in [3-5] of its last [3-5] rated"))
    expect(notice).to_contain_text("not legal")
    step = notice.get_by_role("link", name=re.compile(r"match \d+, game 1, step \d+"))
    visit.check("fault-notice")
    step.click()
    expect(page.get_by_role("region", name="Replay")).to_be_visible()
    fault = page.locator("#rv-fault")
    expect(fault).to_contain_text('"DEAL"')  # what the bot sent
    expect(fault).to_contain_text('did you mean "deal"? (a wrong case')  # the fix
    page.get_by_text("The raw observation and legal actions").click()
    raw = page.locator("#rv-raw")
    expect(raw).to_contain_text('"legal"')
    expect(raw).to_contain_text('"deal"')  # what it could have answered
    visit.check("fault-step")
