"""The live feed names each move's action as every seat learns it (issue 46): a played
card or a bet is published with its seat; a sealed Fifteen Thirty-Five declaration is not,
nor who made it, until the showdown shows them all."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
import redis
from pytest_django.fixtures import Settings as SettingsWrapper

from tournaments.play import live_feed

REDIS_URL = os.environ.get("JUDGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def tables(settings: SettingsWrapper) -> Iterator[redis.Redis]:
    settings.JUDGE_TABLE_REDIS_URL = REDIS_URL
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    yield client
    client.flushdb()


def test_the_feed_publishes_public_actions_and_keeps_declarations_secret(
    tables: redis.Redis,
) -> None:
    make = live_feed.feed_maker(7, "fifteen35", frozenset({0}))  # a person: always on
    game = make(11, 3, None, {"hands": 1})
    played: list[tuple[int, object, bool]] = []
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        action = next((a for a in legal if a != "fold"), legal[0])  # nobody folds: a showdown
        played.append((seat, action, game.public_action(seat, action) is None))
        game.apply(seat, action)
    events = [json.loads(line) for line in tables.lrange(live_feed.feed_key(7), 0, -1)]
    assert len(events) == len(played)
    secret = [event for event, (_, _, hidden) in zip(events, played, strict=True) if hidden]
    assert secret and len(secret) < len(events), "no declaration, or nothing else, to test"
    for event, (seat, action, hidden) in zip(events, played, strict=True):
        if hidden:
            assert event["seat"] is None and "action" not in event, event
            assert action in ("15", "35", "both")
        else:
            assert (event["seat"], event["action"]) == (seat, action), event


def test_the_feed_says_what_each_move_ended_and_how_the_game_ended(
    tables: redis.Redis,
) -> None:
    """As the replay narrates: the move that settles a hand says how (the showdown, the
    pot), the last says the scores and places; seats are named by a token the page fills
    in, and no revealed card is told beyond what the showdown showed."""
    make = live_feed.feed_maker(8, "fifteen35", frozenset({0}))
    game = make(11, 3, None, {"hands": 1})
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        game.apply(seat, next((a for a in legal if a != "fold"), legal[0]))
    events = [json.loads(line) for line in tables.lrange(live_feed.feed_key(8), 0, -1)]
    told = [event for event in events if "say" in event]
    assert [event is events[-1] for event in told] == [True], "the hand ends at the last move"
    words = json.dumps(told[0]["say"])
    assert "Hand 1: showdown" in words and "{seat " in words, words
    outcome = json.dumps(events[-1]["outcome"])
    assert "{seat 0}" in outcome and "{seat 2}" in outcome, outcome
    assert all("outcome" not in event for event in events[:-1])
