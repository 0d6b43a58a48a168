"""play_match's ``announce``: before each block the referee says which bots it will start,
so a caller can start them together, and a retired bot is never among them."""

from __future__ import annotations

from typing import Any

from judge.referee import BotInfo, MatchSpec, play_match
from tests.judge.fakes import Reply, Table, first_legal, ready
from tests.judge.toygame import make_race

BOTS = [BotInfo(name) for name in "abc"]


def crashes_at_first_act(message: dict[str, Any]) -> Reply | None:
    if message["type"] == "hello":
        return ready()
    return Reply(error=ConnectionResetError("gone")) if message["type"] == "act" else None


def test_each_block_announces_exactly_the_bots_it_then_starts() -> None:
    table = Table(first_legal, crashes_at_first_act, first_legal)
    announced: list[list[int]] = []
    started: list[int] = []

    def start(index: int) -> Any:
        started.append(index)
        return table.start(index)

    spec = MatchSpec("race", seed=7, games=2, duplicate=True)
    outcome = play_match(
        spec, BOTS, start, make_game=make_race, clock=table.clock, announce=announced.append
    )
    assert [fault.bot for fault in outcome.faults] == [1]
    assert len(announced) == 3  # three players: three seatings, one block each
    assert announced[0] == [0, 1, 2]
    assert all(block == [0, 2] for block in announced[1:])
    assert started == [index for block in announced for index in block]
    assert [channel.starts for channel in table.channels] == [3, 1, 3]


def test_without_announce_the_referee_starts_the_same_bots() -> None:
    table = Table(first_legal, crashes_at_first_act, first_legal)
    spec = MatchSpec("race", seed=7, games=2, duplicate=True)
    play_match(spec, BOTS, table.start, make_game=make_race, clock=table.clock)
    assert [channel.starts for channel in table.channels] == [3, 1, 3]
