"""The runner starts only the bots the referee will ask for, a block's bots together: in a
duplicate match a retired bot gets no container in later blocks (local sandbox here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from sandbox.backend import Backend
from sandbox.channel import Channel
from sandbox.parallel import SeatStart
from tests.tournaments.conftest import CRASHER, FIRST_LEGAL
from tests.tournaments.recording import RecordingBackend
from tournaments.models import bundle_code
from tournaments.play import runner

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")


def seat(name: str, source: str) -> runner.SeatPlan:
    code, digest = bundle_code({"main.py": source.encode()})
    return runner.SeatPlan(name=name, content_hash=digest, code=code)


def duplicate_plan(*seats: runner.SeatPlan) -> runner.MatchPlan:
    return runner.MatchPlan(
        match_id=11,
        game="bigtwo",
        variant="",
        options={},
        seed=9,
        games=1,
        duplicate=True,
        time_control={},
        limits={},
        seats=list(seats),
    )


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The labels of each start_many call the runner makes, in order."""
    calls: list[list[str]] = []
    real = runner.start_many

    def recording(backend: Backend, seats: Sequence[SeatStart], **kw: Any) -> list[Channel]:
        calls.append([s.label for s in seats])
        return real(backend, seats, **kw)

    monkeypatch.setattr(runner, "start_many", recording)
    return calls


def test_a_retired_bot_gets_no_container_in_later_blocks(batches: list[list[str]]) -> None:
    steady = FIRST_LEGAL % {"delay": 0}
    plan = duplicate_plan(seat("a", steady), seat("crasher", CRASHER), seat("c", steady))
    recording = RecordingBackend()
    outcome, _ = runner.play(plan, lambda: recording)
    assert [fault["bot"] for fault in outcome["faults"]] == [1]
    # Three seatings, one block each: the crasher is started in the first only.
    assert batches == [
        ["match-11-bot0", "match-11-bot1", "match-11-bot2"],
        ["match-11-bot0", "match-11-bot2"],
        ["match-11-bot0", "match-11-bot2"],
    ]
    assert sorted(recording.labels) == sorted(label for batch in batches for label in batch)


def test_in_process_house_bots_are_never_started_in_the_sandbox(
    batches: list[list[str]],
) -> None:
    steady = FIRST_LEGAL % {"delay": 0}
    house = runner.SeatPlan(name="house:random", content_hash="", house_policy="random")
    plan = duplicate_plan(seat("a", steady), house)
    outcome, _ = runner.play(plan, RecordingBackend, house_in_sandbox=False)
    assert outcome["faults"] == []
    assert batches == [["match-11-bot0"], ["match-11-bot0"]]
