"""A running bot match, followed live in a real browser: moves arrive on the match page
before the match ends, a few seconds behind, and no card a seat holds unseen reaches the
spectator's page or the feed it reads."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from playwright.sync_api import Response, expect

from judge.games import starting_game
from tests.tournaments.conftest import first_legal
from tests.web.conftest import Visit
from tests.web.test_human_table import REDIS_URL, Worker, held_matches, strings
from tournaments.api.actions import request_quick_match
from tournaments.models import Ladder, Match, Seat
from tournaments.play import live_feed, replay_store

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


@pytest.fixture
def feed_redis(settings: Any) -> Iterator[redis.Redis]:
    settings.JUDGE_TABLE_REDIS_URL = REDIS_URL
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    yield client
    client.flushdb()


def unseen_at_last_move(record: dict[str, Any]) -> set[str]:
    """Cards some seat held that the table had not shown, just before game 1's last move."""
    played = record["games"][0]["record"]
    game = starting_game(played)
    for seat, action in played["actions"][:-1]:
        game.apply(seat, action)
    public = set(strings(live_feed.public_view(game)))
    held = set().union(*(set(strings(game.observation(s))) for s in range(game.players)))
    return {card for card in held - public if re.fullmatch(r"[2-9TJQKA][cdhsx]|JK", card)}


def test_a_running_match_is_followed_live_and_shows_only_public_cards(
    visit: Visit, feed_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = held_matches(monkeypatch)
    slow = first_legal("bigtwo", "slow", delay=0.15)
    other = first_legal("bigtwo", "other", delay=0.15)
    match = request_quick_match(slow, [other], [], games=3)
    assert held == [match.pk]
    page = visit.page
    feeds: list[dict[str, Any]] = []

    def keep(response: Response) -> None:
        if "/live/" in response.url and response.ok:
            feeds.append(response.json())

    page.on("response", keep)
    worker = Worker(match.pk)
    worker.start()
    visit.go(f"/matches/{match.pk}/")
    expect(page.locator("#live-moves li").first).to_be_visible(timeout=60_000)
    # Still being played while moves are on the page:
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING
    visit.check("live-running")
    # Each game's end is told as the replay tells it, seats by their names (issue 46).
    over = page.locator("#live-moves li", has_text="Game 1 is over.")
    expect(over).to_contain_text(
        re.compile(r"(slow|other) v1 \(seat \d\) won\. Points: "), timeout=60_000
    )
    expect(page.locator("#live-moves")).to_contain_text(
        re.compile(r"Deal 1: (slow|other) v1 \(seat \d\) went out")
    )
    expect(page.locator("#live-moves")).not_to_contain_text("{seat")
    worker.join(timeout=120)
    assert worker.answer == "stored", worker.answer
    expect(page.locator("#rv-counter")).to_have_text(re.compile(r"step 1 of \d+"))
    visit.audit()
    record = replay_store.load(Match.objects.get(pk=match.pk).replay)
    secret = unseen_at_last_move(record)
    assert secret, "nothing hidden to test"
    # Up to game 1's last move (which shows the winner's last cards to everyone).
    events = [e for body in feeds for e in body["events"] if e["game"] == 0 and not e["over"]]
    views = [e["view"] for e in events if "view" in e]
    assert views, "no move reached the page"
    leaked = secret & set(strings(views))
    assert not leaked, f"unseen cards reached the spectator: {leaked}"


def test_now_playing_lists_the_ladders_running_matches(visit: Visit) -> None:
    ladder = Ladder.objects.create(game="bigtwo")
    one, two = first_legal("bigtwo", "north"), first_legal("bigtwo", "south")
    running = Match.objects.create(game="bigtwo", ladder=ladder, status=Match.Status.RUNNING)
    done = Match.objects.create(game="bigtwo", ladder=ladder, status=Match.Status.DONE)
    quick = Match.objects.create(game="bigtwo", status=Match.Status.RUNNING)
    for match in (running, done, quick):
        for index, version in enumerate((one, two)):
            Seat.objects.create(match=match, index=index, version=version)
    page = visit.page
    visit.go("/leaderboard/bigtwo/")
    page.get_by_role("link", name="Now playing").click()
    link = page.get_by_role("link", name=f"Match {running.pk}: north vs south")
    expect(link).to_be_visible()
    expect(page.locator("#now-playing li")).to_have_count(1)  # not the done or quick one
    visit.check("now-playing")
    link.click()
    expect(page.locator("#live-count")).to_have_text("No move yet.")
    visit.audit()
