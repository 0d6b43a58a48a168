"""A check cannot be told from a rated match: standard clocks, a secret seed, a random
seat (and the report still blames the right seat)."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.competitions import time_control
from tournaments.models import bundle_code
from tournaments.play import runner, version_checks

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

GOOD = "import botkit\nbotkit.run(lambda observation, legal: len(legal) - 1)\n"
CRASHES = """\
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    else:
        sys.exit("crashing on purpose")
"""

REAL_PLAY = runner.play


def checked(source: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[Any]]:
    """The report of checking ``source`` as version 1, and the plans of its matches."""
    plans: list[runner.MatchPlan] = []

    def spy(plan: runner.MatchPlan, *args: Any, **kwargs: Any) -> Any:
        plans.append(plan)
        return REAL_PLAY(plan, *args, **kwargs)

    monkeypatch.setattr(runner, "play", spy)
    code, _ = bundle_code({"main.py": source.encode()})
    return version_checks.run_check("bigtwo", code, 1, lambda: runner.make_backend("local")), plans


def test_checks_of_the_same_version_use_standard_clocks_and_unpredictable_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, first_plans = checked(GOOD, monkeypatch)
    second, second_plans = checked(GOOD, monkeypatch)
    assert first["passed"] and second["passed"]
    assert {p.seed for p in first_plans}.isdisjoint({p.seed for p in second_plans})
    for plan in first_plans + second_plans:
        assert plan.time_control == time_control.standard_time_control()
        assert [s.name for s in plan.seats].count("candidate") == 1
    assert time_control.standard_time_control() == version_checks.CHECK_TIME_CONTROL


def test_the_candidate_sits_where_the_draw_says_and_its_fault_is_found_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(version_checks.secrets, "randbelow", lambda n: n - 1)  # the last seat
    report, plans = checked(CRASHES, monkeypatch)
    for plan, match in zip(plans, report["matches"], strict=True):
        assert plan.seats[-1].name == "candidate" and match["seat"] == len(plan.seats) - 1
    assert not report["passed"]
    assert report["reason"].startswith("crashed (with 2 players")
    assert "crashing on purpose" in report["reason"]
