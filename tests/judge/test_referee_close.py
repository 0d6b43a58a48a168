"""Closing a block's bots at once: a container takes 60-150 ms to stop, so closing a
table of six one after another would add most of a second to every block."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from judge.referee import BotInfo, MatchSpec, play_match
from tests.judge.fakes import FakeChannel, Reply, Table, first_legal, ready
from tests.judge.toygame import make_race

SIX = [BotInfo(name) for name in "abcdef"]


@dataclass
class SlowChannel(FakeChannel):
    """A fake bot whose close takes real time (waiting at ``barrier`` first, if any)."""

    close_s: float = 0.0
    barrier: threading.Barrier | None = None
    closes: list[tuple[float, float]] = field(default_factory=list)
    met_the_others: bool = False

    def close(self) -> None:
        assert not self.closed, "a bot was closed twice"
        started = time.monotonic()
        if self.barrier is not None:
            self.barrier.wait()  # raises (and is counted as not met) if the others never come
            self.met_the_others = True
        time.sleep(self.close_s)
        self.closes.append((started, time.monotonic()))
        super().close()


def slow_table(count: int, **channel: Any) -> tuple[Table, list[SlowChannel]]:
    table = Table()
    channels = [SlowChannel(first_legal, table.clock, **channel) for _ in range(count)]
    table.channels = list(channels)
    return table, channels


def play(table: Table, bots: list[BotInfo], **spec: Any) -> Any:
    match = MatchSpec("race", seed=7, games=2, **spec)
    return play_match(match, bots, table.start, make_game=make_race, clock=table.clock)


def test_every_bot_of_a_block_is_being_closed_at_the_same_moment() -> None:
    # Each close waits until all six are inside close(): closing one after another could
    # never get there (the first would give up after the timeout).
    barrier = threading.Barrier(len(SIX), timeout=30.0)
    table, channels = slow_table(len(SIX), barrier=barrier)
    outcome = play(table, SIX)
    assert outcome.faults == []
    assert all(channel.met_the_others for channel in channels)
    assert outcome.logs == ["fake log"] * len(SIX)


def test_closing_six_slow_bots_takes_about_as_long_as_closing_one() -> None:
    close_s = 0.5
    table, channels = slow_table(len(SIX), close_s=close_s)
    play(table, SIX)
    first_start = min(start for channel in channels for start, _ in channel.closes)
    last_end = max(end for channel in channels for _, end in channel.closes)
    # One after another would take at least 6 x 0.5 = 3 s; the margin allows a busy machine.
    assert last_end - first_start < 0.6 * len(SIX) * close_s


def test_each_block_closes_every_bot_once_after_its_match_over_and_keeps_all_logs() -> None:
    table, channels = slow_table(3)
    outcome = play(table, SIX[:3], duplicate=True)
    for channel in channels:
        # FakeChannel refuses a send after close: match_over came first in every block.
        assert [m["type"] for m in channel.sent].count("match_over") == 3
        assert len(channel.closes) == channel.starts == 3
    assert outcome.logs == ["fake log" * 3] * 3


def test_a_bot_retired_during_a_block_is_not_closed_again_at_its_end() -> None:
    def crashes_at_first_act(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return ready()
        return Reply(error=ConnectionResetError("gone")) if message["type"] == "act" else None

    table, channels = slow_table(3)
    channels[1].behaviour = crashes_at_first_act
    outcome = play(table, SIX[:3])
    assert [fault.bot for fault in outcome.faults] == [1]
    assert [len(channel.closes) for channel in channels] == [1, 1, 1]
