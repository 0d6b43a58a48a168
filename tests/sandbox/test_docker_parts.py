"""Issue 43: a duplicate match played in parts on the worker's path, in Docker with the
pool lifecycle (each part as another host would play it: its own runner call, from what the
part before carried): the same outcome as the match played whole, a bot retired in the
first part never started in the second, nothing left."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from judge.referee import Carried, split_blocks
from tests.sandbox.attacks import harness
from tests.sandbox.test_docker_lifecycle import LOUD_CRASHER, duplicate_plan, zipped
from tournaments.play import runner

pytestmark = pytest.mark.docker


def without_times(record: dict[str, Any]) -> dict[str, Any]:
    games = [{k: v for k, v in played.items() if k != "times"} for played in record["games"]]
    return record | {"games": games}


def test_a_match_in_parts_in_docker_is_the_match_played_whole() -> None:
    seats = [
        runner.SeatPlan("crasher", "", code=zipped(LOUD_CRASHER)),
        runner.SeatPlan("house:random", "", house_policy="random"),
        runner.SeatPlan("house:greedy", "", house_policy="greedy"),
    ]
    plan = duplicate_plan("bigtwo", seats, harness.label("parts"))
    pooled = harness.pipe_backend()
    try:
        whole, _ = runner.play(plan, lambda: pooled, lifecycle="pool")
        carried: Carried | None = None
        for index, part in enumerate(split_blocks(3, 2)):
            piece = dataclasses.replace(plan, part=part, carried=carried, part_index=index)
            piece = dataclasses.replace(piece, match_id=2)  # another match for the pool
            outcome, _ = runner.play(piece, lambda: pooled, lifecycle="pool")
            if index == 0:
                seatings = [g["seating"] for g in outcome["games"]]
                assert seatings == [[0, 1, 2]] * 2 + [[1, 2, 0]] * 2
            carried = Carried(outcome["record"]["games"], outcome["faults"], outcome["carry"])
    finally:
        pooled.pool.close()
    for key in ("scores", "places", "games", "faults", "logs", "log_games"):
        assert outcome[key] == whole[key], key
    assert without_times(outcome["record"]) == without_times(whole["record"])
    assert [fault["bot"] for fault in outcome["faults"]] == [0]
    assert outcome["logs"][0].count("started") == 1  # retired: never started again
    assert harness.leftovers_of_this_run() == []
