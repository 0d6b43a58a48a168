"""Issue 43: a duplicate match played in parts (its seatings cut into runs, each part
starting from what the one before carried) has exactly the outcome of the match played
whole, whatever the bots answer: the same games, results, faults, banks, logs and record.
The service plays such parts on different hosts (tournaments.play.tasks)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.referee import (
    BotInfo,
    Carried,
    MatchSpec,
    TimeControl,
    blocks,
    play_match,
    schedule,
    split_blocks,
)
from judge.replay import verify
from tests.judge.fakes import Table
from tests.judge.test_referee_chaos import ANSWERS, scripted
from tests.judge.toygame import make_race

SPEC = MatchSpec("race", seed=7, games=2, duplicate=True, time=TimeControl(1.0, 0.5, 1.0))
BOTS = [BotInfo(name) for name in "abc"]


def whole(scripts: list[list[Any]]) -> dict[str, Any]:
    table = Table(*(scripted(answers) for answers in scripts))
    outcome = play_match(SPEC, BOTS, table.start, make_game=make_race, clock=table.clock)
    return outcome.to_json() | {"record": outcome.record}


def in_parts(scripts: list[list[Any]], parts: int) -> dict[str, Any]:
    """The same match, each part a new referee starting from the last part's carry (the
    fake bots and their clock go on, as the bots' code would on another host)."""
    table = Table(*(scripted(answers) for answers in scripts))
    count = len(blocks(schedule(SPEC, 3)))
    carried: Carried | None = None
    for part in split_blocks(count, parts):
        outcome = play_match(
            SPEC, BOTS, table.start, make_game=make_race, clock=table.clock,
            part=part, carried=carried,
        )  # fmt: skip
        carried = Carried(
            games=outcome.record["games"],
            faults=[fault.to_json() for fault in outcome.faults],
            bots=outcome.carry,
        )
    return outcome.to_json() | {"record": outcome.record}


def test_blocks_split_into_even_runs_in_order() -> None:
    assert split_blocks(6, 2) == [range(0, 3), range(3, 6)]
    assert split_blocks(4, 3) == [range(0, 2), range(2, 3), range(3, 4)]
    assert split_blocks(2, 5) == [range(0, 1), range(1, 2)]
    assert split_blocks(3, 1) == [range(0, 3)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(ANSWERS, max_size=10), min_size=3, max_size=3), st.integers(2, 6))
def test_a_match_in_parts_is_the_match_played_whole(scripts: list[list[Any]], parts: int) -> None:
    played = in_parts(scripts, parts)
    assert played == whole(scripts)
    assert verify(played["record"], make_race) == []


def test_a_bot_retired_in_one_part_stays_retired_in_the_next() -> None:
    crash = scripted([])
    table = Table(crash, crash, crash)
    outcome = play_match(
        SPEC, BOTS, table.start, make_game=make_race, clock=table.clock, part=range(0, 1)
    )
    state = [dict(bot) for bot in outcome.carry]
    state[2]["retired"] = True  # as if bot 2 had faulted in the first part
    carried = Carried(outcome.record["games"], [], state)
    starts = [channel.starts for channel in table.channels]
    rest = play_match(
        SPEC, BOTS, table.start, make_game=make_race, clock=table.clock,
        part=range(1, 3), carried=carried,
    )  # fmt: skip
    assert table.channels[2].starts == starts[2]  # never started again
    assert [g["index"] for g in rest.games] == list(range(6))
    assert rest.carry[2]["retired"]


def test_a_part_outside_the_match_is_refused() -> None:
    table = Table(scripted([]), scripted([]), scripted([]))
    with pytest.raises(ValueError, match="holds none"):
        play_match(
            SPEC, BOTS, table.start, make_game=make_race, clock=table.clock, part=range(9, 10)
        )
