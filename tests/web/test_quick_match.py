"""A quick match from a bot's page, in a real browser: the owner picks a version and
opponents, follows the match live, then replays it; the API's bounds, quotas and errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.web.conftest import Visit, log_in, make_user, quick_bot
from tournaments.models import Match
from tournaments.play import tasks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
]


def held_matches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Queued matches wait (no worker takes them) until the test plays them."""
    held: list[int] = []
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda args, **_: held.append(args[0]))
    return held


def test_the_owner_plays_a_quick_match_follows_it_and_replays_it(
    visit: Visit, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob = make_user("ada"), make_user("bob")
    mine = quick_bot(ada, "bigtwo", "ada-bot", "greedy")
    quick_bot(ada, "bigtwo", "ada-bot-two")  # a second version below
    theirs = quick_bot(bob, "bigtwo", "bob-bot")
    held = held_matches(monkeypatch)
    log_in(visit, "ada")
    page = visit.page
    visit.go(f"/bots/{mine.bot_id}/")
    page.get_by_role("link", name="Play a quick match").click()
    expect(page.get_by_role("heading", name=re.compile("Quick match"))).to_be_visible()
    page.get_by_label("Your version").select_option(label="v1")
    page.get_by_label("Opponent 1").select_option(label="house: greedy")
    page.get_by_label("Opponent 2").select_option(label="bob-bot v1 (bob)")
    page.get_by_label("Games").fill("2")
    visit.check("quick-form")
    page.get_by_role("button", name="Start the quick match").click()

    expect(page.locator("#match-status")).to_have_text("queued")
    (match_id,) = held
    match = Match.objects.get(pk=match_id)
    assert not match.rated and match.games == 2 and match.requested_by_id == ada.pk
    seated = [seat.version_id for seat in match.seats.order_by("index")]
    assert seated[:2] == [mine.pk, theirs.pk] and len(seated) == 3  # then the house bot
    expect(page.locator("main")).to_contain_text("quick match")
    visit.check("quick-queued")
    tasks.play_match(match_id)  # a worker plays it; the page follows and reloads
    expect(page.locator("#rv-counter")).to_have_text(re.compile(r"step 1 of \d+"))
    expect(page.locator("#match-status")).to_have_text("done")
    expect(page.locator("#rv-game option")).to_have_count(2)
    expect(page.locator(".seat-box h3").first).to_have_text("ada-bot v1")
    visit.check("quick-replay")


def test_a_bad_choice_is_refused_in_words_and_the_form_kept(
    visit: Visit, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = make_user("ada")
    mine = quick_bot(ada, "bigtwo", "ada-bot")
    held = held_matches(monkeypatch)
    log_in(visit, "ada")
    page = visit.page
    visit.go(f"/bots/{mine.bot_id}/quick/")
    page.get_by_label("Opponent 1").select_option(label="— nobody —")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Start the quick match").click()
    assert answer.value.status == 400
    alert = page.locator(".errors")
    expect(alert).to_contain_text("bigtwo tables seat 2 to 4, not 1")
    expect(page.get_by_label("Games")).to_have_value("1")
    visit.check("quick-refused")
    assert held == [] and not Match.objects.exists()


def post(client: Client, bot_id: int, **fields: Any) -> Any:
    form = {"version": fields.pop("version"), "games": "1", "opponent_1": "house:random", **fields}
    return client.post(reverse("web:quick_match", args=[bot_id]), form)


def test_the_apis_bounds_quotas_and_owner_rule_hold(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    held_matches(monkeypatch)
    ada, bob = make_user("ada"), make_user("bob")
    mine = quick_bot(ada, "oceans11", "ada-bot")
    theirs = quick_bot(bob, "oceans11", "bob-bot")
    other_game = quick_bot(bob, "bigtwo", "bob-two")
    client = Client()
    client.force_login(ada)
    for bad, words in [
        ({"opponent_1": "v999999"}, "no bot version 999999"),
        ({"opponent_1": f"v{other_game.pk}"}, "plays bigtwo, not oceans11"),
        ({"opponent_1": "house:nobody"}, "no house bot &#x27;nobody&#x27; for oceans11"),
        ({"opponent_1": "xyz"}, "&#x27;xyz&#x27; is neither a house bot"),
        ({"opponent_1": "house:random", "games": "11"}, "less than or equal to 10"),
        ({"version": str(theirs.pk)}, "Select a valid choice"),
    ]:
        answer = post(client, mine.bot_id, **{"version": str(mine.pk), **bad})
        assert answer.status_code == 400, bad
        assert words in answer.content.decode(), (bad, answer.content.decode()[-2000:])
    assert not Match.objects.exists()

    stranger = Client()
    stranger.force_login(bob)
    assert stranger.get(reverse("web:quick_match", args=[mine.bot_id])).status_code == 404
    assert post(stranger, mine.bot_id, version=str(mine.pk)).status_code == 404
    page = stranger.get(reverse("web:bot", args=[mine.bot_id])).content.decode()
    assert "Play a quick match" not in page
    assert (
        "Play a quick match" in client.get(reverse("web:bot", args=[mine.bot_id])).content.decode()
    )
    anonymous = Client()
    assert anonymous.post(reverse("web:quick_match", args=[mine.bot_id])).status_code == 302
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(ada)
    assert post(guarded, mine.bot_id, version=str(mine.pk)).status_code == 403

    settings.QUOTA_QUICK_MATCHES_PER_HOUR = 1
    assert post(client, mine.bot_id, version=str(mine.pk)).status_code == 302
    answer = post(client, mine.bot_id, version=str(mine.pk))
    assert answer.status_code == 429 and int(answer.headers["Retry-After"]) > 0
    assert "you may make at most 1 quick matches an hour" in answer.content.decode()
    assert Match.objects.count() == 1


def test_the_request_rate_is_the_apis_and_says_so(settings: SettingsWrapper) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "quick_matches": "1/hour"},
    }
    ada = make_user("ada")
    mine = quick_bot(ada, "oceans11", "ada-bot")
    client = Client()
    client.force_login(ada)
    assert post(client, mine.bot_id, version=str(mine.pk), games="99").status_code == 400
    answer = post(client, mine.bot_id, version=str(mine.pk))
    assert answer.status_code == 429
    assert "Too many quick matches: at most 1 every hour" in answer.content.decode()
    api = Client()
    api.force_login(ada)
    refused = api.post(
        "/api/matches/quick/", {"version": mine.pk, "house_bots": ["random"]}, "application/json"
    )
    assert refused.status_code == 429  # one count for the web and the API
