"""The person's channel on a real Redis: the referee's lines reach the seat's list, the
greeting is answered for the person, an answer to an earlier move is dropped, and a person
who does not answer times out like a silent bot: the seat is retired, the engine plays
its fallback, and the match ends with the fault recorded."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator

import pytest
import redis
from pytest_django.fixtures import Settings as SettingsWrapper

from judge import protocol
from judge.bots import house_policy
from judge.channel import BotTimeout
from judge.players import PolicyChannel
from judge.referee import BotInfo, MatchSpec, TimeControl, play_match
from tournaments.play import human_seat, live_feed

REDIS_URL = os.environ.get("JUDGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def tables(settings: SettingsWrapper) -> Iterator[redis.Redis]:
    settings.JUDGE_TABLE_REDIS_URL = REDIS_URL
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    yield client
    client.flushdb()


def act_line(game: int, move: int) -> bytes:
    return protocol.encode(
        protocol.act(
            game=game, move=move, seat=0, observation={}, legal=["a", "b"], move_s=1, bank_s=0
        )
    )


def test_lines_reach_the_seat_and_only_the_open_questions_answer_is_taken(
    tables: redis.Redis,
) -> None:
    channel = human_seat.PersonChannel(41)
    channel.send(b'{"type": "hello"}')
    assert json.loads(channel.recv(time.monotonic() + 1)) == {"type": "ready"}
    channel.send(act_line(0, 3))
    human_seat.post_answer(41, 0, 2, 1)  # an earlier move's answer: dropped
    human_seat.post_answer(41, 0, 3, 1)
    assert json.loads(channel.recv(time.monotonic() + 5)) == {"type": "action", "action": 1}
    assert [line["type"] for line in human_seat.person_lines(41, 0)] == ["hello", "act"]
    assert human_seat.person_lines(41, 1)[0]["move"] == 3
    channel.send(act_line(0, 4))
    began = time.monotonic()
    with pytest.raises(BotTimeout):
        channel.recv(time.monotonic() + 0.3)
    assert time.monotonic() - began < 0.3 + human_seat.POLL_SECONDS + 1


def test_a_silent_person_times_out_and_the_engine_plays_the_seat(tables: redis.Redis) -> None:
    spec = MatchSpec(
        game="oceans11",
        seed=5,
        variant="mini",
        time=TimeControl(startup_s=1, move_s=0.2, bank_s=0.2),
    )
    bots = [BotInfo("person"), BotInfo("house:random")]

    def start(index: int) -> human_seat.PersonChannel | PolicyChannel:
        if index == 0:
            return human_seat.PersonChannel(42)
        return PolicyChannel(house_policy("oceans11", "random", 1))

    outcome = play_match(
        spec, bots, start, make_game=live_feed.feed_maker(42, "oceans11", frozenset({0}))
    )
    faults = [fault for fault in outcome.faults if fault.bot == 0]
    assert [fault.kind for fault in faults] == ["timeout"]
    assert outcome.places  # the match ended
    events, following = live_feed.read_feed(42, 0, 0.0)
    moves = len(outcome.record["games"][0]["record"]["actions"])
    assert following == moves and events[-1]["over"]
    assert live_feed.read_feed(42, 0, 3600.0) == ([], 0)  # spectators wait out the delay


def test_a_person_answering_on_a_thread_plays_the_match(tables: redis.Redis) -> None:
    spec = MatchSpec(game="oceans11", seed=6, variant="mini", time=TimeControl(5, 5, 5))
    bots = [BotInfo("person"), BotInfo("house:random")]
    stop = threading.Event()

    def person() -> None:
        answered = 0
        while not stop.is_set():
            lines = human_seat.person_lines(43, 0)
            asks = [line for line in lines if line["type"] == "act"]
            if len(asks) > answered:
                human_seat.post_answer(43, asks[-1]["game"], asks[-1]["move"], 0)
                answered = len(asks)
            time.sleep(0.01)

    def start(index: int) -> human_seat.PersonChannel | PolicyChannel:
        if index == 0:
            return human_seat.PersonChannel(43)
        return PolicyChannel(house_policy("oceans11", "random", 1))

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    try:
        outcome = play_match(spec, bots, start)
    finally:
        stop.set()
        thread.join()
    assert not outcome.faults
