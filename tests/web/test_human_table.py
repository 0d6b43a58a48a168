"""A person plays a whole match against house bots in a real browser, by clicking legal
actions on the table page, while a worker (the real task, on a thread of this process)
plays the match with the person's seat on Redis; then the replay is checked. Everything
the person's browser received is kept, and no card another seat still held reaches it
before the game is over; the same for the spectators' live feed.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Response, expect
from pytest_django.fixtures import Settings as SettingsWrapper

from judge.games import starting_game
from tests.web.conftest import Visit, log_in, make_user, quick_bot
from tournaments.api.actions import request_quick_match
from tournaments.errors import ServiceError
from tournaments.models import Match
from tournaments.play import human_match, replay_store, tasks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
]
REDIS_URL = os.environ.get("JUDGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
#: Each game: its variant choice on the form (or None) and how many opponents to seat.
GAMES = {"oceans11": ("mini", 1), "bigtwo": (None, 3), "fifteen35": (None, 2)}


@pytest.fixture
def table_redis(settings: SettingsWrapper) -> Iterator[redis.Redis]:
    """The tables' Redis: this run's own test database, emptied before and after."""
    settings.JUDGE_TABLE_REDIS_URL = REDIS_URL
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    yield client
    client.flushdb()


def held_matches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Queued matches wait until the test's worker thread plays them."""
    held: list[int] = []
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda args, **_: held.append(args[0]))
    return held


class Worker(threading.Thread):
    """Plays one match with the real task, as a worker process would."""

    def __init__(self, match_id: int) -> None:
        super().__init__(daemon=True)
        self.match_id = match_id
        self.answer = ""

    def run(self) -> None:
        from django.db import connection

        try:
            self.answer = tasks.play_match(self.match_id)
        finally:
            connection.close()


def strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)


def before_game_over(bodies: list[dict[str, Any]]) -> list[Any]:
    """The person's lines and the feed's views up to the first game_over line."""
    seen: list[Any] = []
    for body in bodies:
        for line in body["lines"]:
            if line["type"] == "game_over":
                return seen
            seen.append(line)
        seen.extend(event.get("view") for event in body["events"] if not event["over"])
        seen.extend(event.get("action") for event in body["events"] if not event["over"])
    return seen


def held_to_the_end(record: dict[str, Any], person: int) -> set[str]:
    """Cards other seats held unseen just before game 1's last move: the record replayed
    to there, each other seat's observation less what the person's seat saw."""
    played = record["games"][0]["record"]
    game = starting_game(played)
    for seat, action in played["actions"][:-1]:
        game.apply(seat, action)
    person_view = set(strings(game.observation(person)))
    hidden: set[str] = set()
    for seat in range(game.players):
        if seat != person:
            hidden |= set(strings(game.observation(seat))) - person_view
    return {card for card in hidden if re.fullmatch(r"[2-9TJQKA][cdhsx]|JK", card)}


def play_by_clicking(visit: Visit, game: str) -> tuple[Match, list[dict[str, Any]]]:
    page = visit.page
    variant, opponents = GAMES[game]
    visit.go(f"/play/{game}/")
    if variant:
        page.get_by_label("Variant").select_option(variant)
    for number in range(1, 8):
        box = page.locator(f"#id_opponent_{number}")
        if box.count():
            box.select_option(label="house: random" if number <= opponents else "— nobody —")
    visit.check(f"{game}-sit-down")
    page.get_by_role("button", name="Sit down and play").click()
    page.wait_for_url(re.compile(r"/matches/\d+/table/$"))
    visit.audit()
    return Match.objects.get(pk=int(page.url.rstrip("/").split("/")[-2])), []


def test_a_person_plays_a_whole_match_of_each_game_by_clicking_legal_actions(
    visit: Visit, table_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = held_matches(monkeypatch)
    make_user("ada")
    log_in(visit, "ada")
    page = visit.page
    states: list[dict[str, Any]] = []

    def keep(response: Response) -> None:
        if "/table/state/" in response.url and response.ok:
            states.append(response.json())

    page.on("response", keep)
    for game in GAMES:
        states.clear()
        match, _ = play_by_clicking(visit, game)
        assert held[-1] == match.pk and not match.rated
        worker = Worker(match.pk)
        worker.start()
        clicks = 0
        done = page.locator("#table-done")
        action = page.locator(".table-action")
        while not done.is_visible():
            page.wait_for_selector(".table-action, #table-done:not([hidden])", timeout=60_000)
            if action.count() and clicks % 7 == 3:
                page.keyboard.press("1")  # the keyboard plays too: a digit starts the search
                page.keyboard.press("Enter")  # and Enter plays the action of that number
                clicks += 1
            elif action.count():
                if clicks == 1:
                    visit.check(f"{game}-table")
                choice = action.nth(clicks % action.count())
                try:
                    choice.click(timeout=2_000)
                    clicks += 1
                except Exception:  # the question closed meanwhile (the page moved on)
                    continue
                page.wait_for_function(
                    "(n) => document.querySelectorAll('.table-action').length === 0 || "
                    "!document.getElementById('table-done').hidden",
                    arg=None,
                )
        worker.join(timeout=60)
        assert worker.answer == "stored", (worker.answer, Match.objects.get(pk=match.pk).failure)
        match.refresh_from_db()
        assert match.status == Match.Status.DONE, (match.status, match.failure)
        assert clicks >= 2
        record = replay_store.load(match.replay)
        person = human_match.person_seat_of(match)
        assert person == 0
        # Nobody played for the person: no fault of their seat, and the replay's moves
        # of seat 0 are as many as the person's clicks (one answer per question).
        assert not [f for f in match.faults if f["bot"] == person], match.faults
        assert record["header"]["bots"][0]["name"] == "person v1"
        visit.check(f"{game}-table-done")
        page.get_by_role("link", name=re.compile("see its result and replay")).click()
        expect(page.locator("#rv-counter")).to_have_text(re.compile(r"step 1 of \d+"))
        visit.audit()
        # What the browser received: its own seat's view only, nothing another seat hid.
        bodies = list(states)
        secret = held_to_the_end(record, person)
        assert secret or game == "oceans11", f"{game}: nothing hidden to test"  # 11: no hand
        leaked = secret & set(strings(before_game_over(bodies)))
        assert not leaked, f"{game}: another seat's cards reached the person: {leaked}"
        asked = [line for body in bodies for line in body["lines"] if line["type"] == "act"]
        assert asked and all(line["seat"] == person for line in asked)


def test_the_table_refuses_strangers_bad_answers_and_a_second_table(
    table_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    held_matches(monkeypatch)
    ada, bob = make_user("ada"), make_user("bob")
    match = human_match.request_human_match(ada, "oceans11", ["random"], "mini")
    stranger = Client()
    stranger.force_login(bob)
    for name in ("table", "table_state"):
        assert stranger.get(reverse(f"web:{name}", args=[match.pk])).status_code == 404
    owner = Client()
    owner.force_login(ada)
    answer = reverse("web:table_answer", args=[match.pk])
    refused = owner.post(answer, "{}", content_type="application/json")
    assert refused.status_code == 409 and "queued" in refused.json()["error"]
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    for body, status in [
        ("[[[[[[", 400),
        ('{"game": 0}', 400),
        ("x" * 2000, 413),
        ('{"game": 0, "move": 0, "action": 0}', 409),  # no question is open
    ]:
        got = owner.post(answer, body, content_type="application/json")
        assert got.status_code == status, (body, got.content)
    nasty = ["-1", "²", "٣", "9" * 20, "1e9", "nan", " 1", "", "\x00", "v1"]
    for value in nasty:
        for name, query in [("table_state", {"lines": value}), ("table_state", {"events": value})]:
            state = owner.get(reverse(f"web:{name}", args=[match.pk]), query)
            assert state.status_code == 400 and "whole number" in state.json()["error"], value
        assert (
            owner.get(reverse("web:live_feed", args=[match.pk]), {"after": value}).status_code
            == 400
        )
        assert owner.get("/play/bigtwo/", {"against": value}).status_code == 200
    assert owner.get("/play/nothing/").status_code == 404
    assert owner.get("/now-playing/nothing/").status_code == 404
    with pytest.raises(Exception, match="already have a match at a table"):
        human_match.request_human_match(ada, "oceans11", ["random"], "mini")
    with pytest.raises(Exception, match="tables seat 2 to 2, not 3"):
        human_match.request_human_match(bob, "oceans11", ["random", "random"])
    assert json.loads(owner.get(reverse("web:live_feed", args=[match.pk])).content)["events"] == []
    # The person's seat is no bot: no quick match or tournament takes it.
    mine = quick_bot(ada, "oceans11", "ada-bot")
    with pytest.raises(ServiceError, match="is rejected"):
        request_quick_match(mine, [human_match.person_version("oceans11")], [], 1)


def test_play_against_a_bot_from_its_page_and_the_game_page(
    table_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = held_matches(monkeypatch)
    ada, bob = make_user("ada"), make_user("bob")
    theirs = quick_bot(bob, "bigtwo", "bob-bot")
    client = Client()
    client.force_login(ada)
    page = client.get(reverse("web:bot", args=[theirs.bot_id])).content.decode()
    link = f"/play/bigtwo/?against={theirs.bot_id}"
    assert link in page
    board = client.get(reverse("web:leaderboard", args=["bigtwo"])).content.decode()
    assert 'href="/play/bigtwo/"' in board
    form = client.get(link).content.decode()
    assert f'<option value="v{theirs.pk}" selected>bob-bot v1</option>' in form
    answer = client.post(link, {"opponent_1": f"v{theirs.pk}", "opponent_2": "house:random"})
    assert answer.status_code == 302, answer.content.decode()[-1500:]
    match = Match.objects.get(pk=held[-1])
    assert [seat.version_id for seat in match.seats.order_by("index")][1] == theirs.pk
    assert match.seats.count() == 3 and not match.rated and match.options == {"deals": 1}
    assert answer["Location"] == reverse("web:table", args=[match.pk])
    # A bot nobody offered is refused by the form, in words.
    refused = client.post("/play/bigtwo/", {"opponent_1": f"v{theirs.pk}"})
    assert refused.status_code == 400 and "Select a valid choice" in refused.content.decode()


def test_a_person_who_leaves_the_table_is_played_for_to_the_end(
    visit: Visit, table_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    held_matches(monkeypatch)
    make_user("ada")
    log_in(visit, "ada")
    page = visit.page
    match, _ = play_by_clicking(visit, "oceans11")
    worker = Worker(match.pk)
    worker.start()
    expect(page.locator(".table-action").first).to_be_visible(timeout=60_000)
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Leave the table").click()  # asked first, and declined
    expect(page.locator(".table-action").first).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Leave the table").click()
    expect(page.locator("#table-done")).to_be_visible(timeout=60_000)
    visit.audit()
    worker.join(timeout=60)
    assert worker.answer == "stored", worker.answer
    match.refresh_from_db()
    faults = [(f["bot"], f["kind"]) for f in match.faults]
    assert faults == [(0, "closed")] and "left the table" in match.faults[0]["reason"]
    assert match.result is not None and match.result["places"]
