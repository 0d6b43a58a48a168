"""Hostile bots as real local processes: each earns the right fault, and the match goes on.

Every match here is the toy race (tests.judge.toygame) between one hostile bot and a
polite one, two games, with short clocks so the suite stays fast.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.cli.sandboxing import prepare_bot, starter
from judge.referee import MatchOutcome, MatchSpec, TimeControl, play_match
from judge.replay import verify
from sandbox.limits import Limits
from sandbox.local import LocalBackend, NotASandboxWarning
from tests.judge.toygame import make_race

HOSTILE = Path(__file__).parent / "hostile"
CLOCK = TimeControl(startup_s=2.0, move_s=0.5, bank_s=0.5)
LIMITS = Limits(line_bytes=64 << 10, stderr_bytes=8 << 10)


@pytest.fixture
def backend() -> Iterator[LocalBackend]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        yield LocalBackend(grace_s=0.3)


def match(backend: LocalBackend, tmp_path: Path, hostile: str, **spec: Any) -> MatchOutcome:
    bots = [
        prepare_bot(str(HOSTILE / f"{hostile}.py"), "race", tmp_path),
        prepare_bot(str(HOSTILE / "polite.py"), "race", tmp_path),
    ]
    start = starter(backend, bots, label="hostile", limits=LIMITS)
    options = {"time": CLOCK, "games": 2, **spec}
    return play_match(
        MatchSpec("race", seed=11, **options), [b.info for b in bots], start, make_game=make_race
    )


def assert_polite_bot_unharmed(outcome: MatchOutcome) -> None:
    assert all(fault.bot == 0 for fault in outcome.faults)
    assert "match_over after 2 games" in outcome.logs[1]
    assert verify(outcome.record, make_race) == []
    for played in outcome.record["games"]:
        seats = [seat for seat, _ in played["record"]["actions"]]
        timed = list(zip(seats, played["times"], strict=True))
        assert [t for s, t in timed if s == 0][-1] is None  # the retired seat's fallback
        assert all(t is not None for s, t in timed if s == 1)


@pytest.mark.parametrize(
    ("hostile", "kind", "reason", "move"),
    [
        ("silent", "timeout", "no answer in time", None),
        ("exit_before_ready", "closed", "exited with status 3", None),
        ("slow", "timeout", "no answer in time", 0),
        ("garbage", "not_json", "not one JSON value", 0),
        ("illegal", "illegal_action", "not one of the legal actions", 0),
        ("crash", "closed", "exited with status 1", 4),
        ("early_exit", "closed", "exited with status 0", 0),
        ("bad_utf8", "not_utf8", "not UTF-8", 0),
        ("huge_line", "line_too_long", "over 65536 bytes", 0),
        ("flood", "not_json", "not one JSON value", 0),
        ("closes_output", "closed", "standard output closed", 0),
    ],
)
def test_a_hostile_bot_gets_its_fault_and_the_match_completes(
    backend: LocalBackend,
    tmp_path: Path,
    hostile: str,
    kind: str,
    reason: str,
    move: int | None,
) -> None:
    outcome = match(backend, tmp_path, hostile)
    (fault,) = outcome.faults
    assert (fault.bot, fault.kind, fault.move) == (0, kind, move)
    assert reason in fault.reason
    assert_polite_bot_unharmed(outcome)


def test_a_crash_leaves_its_traceback_in_the_bots_log(
    backend: LocalBackend, tmp_path: Path
) -> None:
    outcome = match(backend, tmp_path, "crash")
    assert "RuntimeError: bot bug" in outcome.logs[0]


def test_the_offending_text_is_kept_truncated(backend: LocalBackend, tmp_path: Path) -> None:
    huge = match(backend, tmp_path, "huge_line").faults[0].text
    assert huge.startswith('{"type":"action","action":"111') and "more]" in huge
    assert len(huge) < 300
    assert match(backend, tmp_path, "bad_utf8").faults[0].text == (
        '{"type":"action","action":"\\xff\\xfe"}'
    )


def test_a_flood_is_capped_in_the_log(backend: LocalBackend, tmp_path: Path) -> None:
    outcome = match(backend, tmp_path, "flood")
    assert len(outcome.logs[0]) < LIMITS.stderr_bytes + 100
    assert "more bytes dropped" in outcome.logs[0]
