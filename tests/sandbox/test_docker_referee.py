"""The attack suite through the referee: each hostile bot plays a match in Docker against
a polite bot; it earns its fault, the polite bot plays on unharmed, the probes' reports
show every door shut, and no container is left."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.cli.sandboxing import SandboxChannel, prepare_bot
from judge.referee import BotInfo, MatchOutcome, MatchSpec, TimeControl, play_match
from sandbox.limits import Limits
from sandbox.parallel import SeatStart, start_many
from tests.judge.toygame import make_race
from tests.sandbox.attacks import harness, verdicts

pytestmark = pytest.mark.docker

POLITE = Path(__file__).parents[1] / "judge" / "hostile" / "polite.py"
#: Generous for the polite bot on a loaded machine; the hostile ones fault at start-up.
CLOCK = TimeControl(startup_s=5.0, move_s=2.0, bank_s=5.0)
#: read_host reads every file of the image before its report (the Python image holds
#: numpy and scipy: about 800 MB), which takes far longer than 5 s on a loaded machine.
SCAN_CLOCK = TimeControl(startup_s=120.0, move_s=2.0, bank_s=5.0)
LIMITS = Limits(line_bytes=64 << 10, stderr_bytes=16 << 10, send_timeout_s=0.5)
PROBE_LIMITS = {
    "fill_tmp": Limits(tmp_mb=12, file_size_mb=4),
    "exhaust_fds": Limits(open_files=64),
    "memory_bomb": Limits(memory_mb=128),
}

#: Attack -> the fault the referee records for it.
FAULTS = {
    "fork_bomb": "timeout",
    "memory_bomb": "closed",
    "cpu_spin": "not_json",
    "sleep_forever": "timeout",
    "never_reads": "timeout",
    "stdout_flood": "line_too_long",
    "huge_line": "line_too_long",
    "stderr_flood": "bad_message",
    "invalid_utf8": "not_utf8",
    **{name: "closed" for name in verdicts.CHECKS if name != "fork_bomb"},
}


@pytest.fixture
def host_pid() -> Iterator[int]:
    with harness.unharmed() as pid:
        yield pid


def play(tmp_path: Path, attack: str, env: dict[str, str]) -> tuple[MatchOutcome, list[str]]:
    hostile = harness.bot_folder(tmp_path, attack)
    polite = prepare_bot(str(POLITE), "race", tmp_path)
    labels = [harness.label(attack), harness.label("polite")]
    seats = [
        SeatStart(hostile, labels[0], PROBE_LIMITS.get(attack, LIMITS), env),
        SeatStart(polite.folder, labels[1], LIMITS),
    ]
    channels = start_many(harness.pipe_backend(), seats)
    bots = [BotInfo(attack), polite.info]
    spec = MatchSpec("race", seed=5, games=2, time=SCAN_CLOCK if attack == "read_host" else CLOCK)
    outcome = play_match(spec, bots, lambda i: SandboxChannel(channels[i]), make_game=make_race)
    return outcome, labels


@pytest.mark.parametrize("attack", sorted(FAULTS))
def test_a_hostile_bot_gets_its_fault_in_docker_and_the_match_completes(
    tmp_path: Path, host_pid: int, attack: str
) -> None:
    env = harness.probe_env(tmp_path, host_pid)
    outcome, labels = play(tmp_path, attack, env)
    faults = [(fault.bot, fault.kind) for fault in outcome.faults]
    assert faults == [(0, FAULTS[attack])], outcome.faults
    assert "match_over after 2 games" in outcome.logs[1]
    if attack in verdicts.CHECKS:
        found = harness.parse_report(outcome.logs[0])
        assert found is not None, outcome.logs[0][-500:]
        verdicts.CHECKS[attack](found, PROBE_LIMITS.get(attack, LIMITS), env)
    for label in labels:
        assert harness.containers_labelled(label) == []


def test_no_container_of_these_matches_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
