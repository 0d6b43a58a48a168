"""The lifecycle of a duplicate match's containers (sandbox.lifecycle, through the
worker's runner): every seating's bot runs in a fresh container, so a bot that keeps the
deal in /tmp, in a daemon, or in a child that outlives it finds nothing of it in the next
seating; a container prepared ahead runs none of the bot's code before its seating
begins (a bot retired meanwhile never runs again); nothing is left when a match ends."""

from __future__ import annotations

import io
import json
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from sandbox.limits import Limits
from tests.sandbox.attacks import harness
from tournaments.play import runner

pytestmark = pytest.mark.docker

ATTACKS = Path(__file__).resolve().parent / "attacks"
#: Generous clocks: the assertions are about what a bot finds, not about speed.
CLOCK = {"startup_s": 60.0, "move_s": 10.0, "bank_s": 60.0}
#: Says it started (on standard error, at once), is ready, then crashes at its first move.
LOUD_CRASHER = """\
import json, sys
print("started", file=sys.stderr, flush=True)
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    else:
        sys.exit("crashing on purpose at the first move")
"""


def zipped(source: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", source)
    return buffer.getvalue()


def duplicate_plan(game: str, seats: list[runner.SeatPlan], instance: str) -> runner.MatchPlan:
    return runner.MatchPlan(
        match_id=1,
        game=game,
        variant="",
        options={},
        seed=17,
        games=2,
        duplicate=True,
        time_control=CLOCK,
        limits={},
        seats=seats,
        instance=instance,
    )


def reports(log: str) -> list[dict[str, Any]]:
    return [json.loads(line[7:]) for line in log.splitlines() if line.startswith("REPORT ")]


def remember_plan(instance: str, match_id: int = 1) -> runner.MatchPlan:
    """Big Two, duplicate, two deals: two remember bots and two house bots."""
    remember = (ATTACKS / "remember.py").read_text()
    seats = [
        runner.SeatPlan("remember", "", code=zipped(remember)),
        runner.SeatPlan("house:random", "", house_policy="random"),
        runner.SeatPlan("remember-too", "", code=zipped(remember)),
        runner.SeatPlan("house:greedy", "", house_policy="greedy"),
    ]
    plan = duplicate_plan("bigtwo", seats, instance)
    return runner.MatchPlan(**{**plan.__dict__, "match_id": match_id, "seed": 16 + match_id})


def assert_nothing_remembered(outcome: dict[str, Any]) -> None:
    """Both remember bots started four times (four seatings) and found nothing each time."""
    assert outcome["faults"] == []
    for bot in (0, 2):
        found = reports(outcome["logs"][bot])
        assert len(found) == 4, outcome["logs"][bot][-2000:]
        for seen in found:
            assert seen["tmp"] == [], seen
            assert seen["file"].startswith("none"), seen
            assert seen["daemon"].startswith("refused"), seen
            assert harness.not_the_zygote(seen["processes"]) == [], seen


@pytest.mark.parametrize("lifecycle", ["warm", "fresh", "reuse"])
def test_a_bot_finds_nothing_of_the_last_seating(lifecycle: runner.Lifecycle) -> None:
    instance = harness.label("remember")
    outcome, _ = runner.play(remember_plan(instance), harness.pipe_backend, lifecycle=lifecycle)
    assert_nothing_remembered(outcome)
    assert harness.leftovers_of_this_run() == []


def test_a_prepared_container_runs_no_code_before_its_seating(tmp_path: Path) -> None:
    code = harness.source_folder(
        tmp_path,
        "loud",
        "import sys\nprint('started', file=sys.stderr, flush=True)\n" + harness.ECHO,
    )
    label = harness.label("gated")
    channel = harness.pipe_backend().prestart(code, label=label, limits=Limits())
    try:
        (container,) = harness.containers_labelled(label)
        assert harness.client().containers.get(container).status == "running"
        time.sleep(1.0)  # it would have spoken by now (this can only miss, never fail wrongly)
        assert channel.stderr() == b""
        channel.go()
        channel.send(b"ping")
        assert channel.recv(time.monotonic() + 60) == b"ping"
        assert channel.stderr() == b"started\n"
    finally:
        channel.close()
    assert channel.wait_removed(60)
    assert harness.containers_labelled(label) == []


def test_a_bot_retired_in_one_seating_never_runs_again() -> None:
    instance = harness.label("retired")
    seats = [
        runner.SeatPlan("crasher", "", code=zipped(LOUD_CRASHER)),
        runner.SeatPlan("house:random", "", house_policy="random"),
    ]
    outcome, _ = runner.play(duplicate_plan("oceans11", seats, instance), harness.pipe_backend)
    assert [fault["bot"] for fault in outcome["faults"]] == [0]
    assert outcome["logs"][0].count("started") == 1  # its next seating's container: closed unused
    assert harness.leftovers_of_this_run() == []


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
