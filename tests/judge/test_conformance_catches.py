"""The conformance suite catches rule bugs in games it has never seen.

The planted games (tests/judge/planted/: Oceans 11 or High Card with one rule bug each) are
registered the way a game from outside the repository is, by ``JUDGE_GAME_PLUGINS``, in a
pytest run of tests/judge/test_conformance.py limited to them. Each must fail with the
message that names its bug; the two whose bug is one wrong answer fail in the one test
written for it and pass every other, so the catch is that test's and the game is otherwise
a conforming one. (The real games pass the same suite: tests/judge/test_conformance.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

import pytest

from judge.games import PLUGINS_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
PLANTED = (
    "tests.judge.planted.oceans:LaxOceans",
    "tests.judge.planted.highcard:Turnless",
    "tests.judge.planted.highcard:Stakes",
    "tests.judge.planted.highcard:Endless",
)
NAMES = ("laxoceans", "turnless", "stakes", "endless")
ILLEGAL = "test_every_action_outside_the_legal_list_is_refused_with_a_reason"
OPTION = "test_every_option_changes_what_the_seats_see_or_the_outcome"

#: game -> test function -> failure messages (one per failed parametrisation)
Failures = dict[str, dict[str, list[str]]]


def run_suite(report: Path) -> tuple[Failures, dict[str, int]]:
    """Run the conformance suite on the planted games alone; their failures and how many
    of each game's tests ran."""
    env = {
        **os.environ,
        PLUGINS_VARIABLE: ",".join(PLANTED),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/judge/test_conformance.py",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            " or ".join(NAMES),
            f"--junitxml={report}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and report.is_file(), (
        f"the suite should run and fail on the planted games:\n{done.stdout}\n{done.stderr}"
    )
    failures: Failures = defaultdict(lambda: defaultdict(list))
    ran: dict[str, int] = defaultdict(int)
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        function, _, params = case.attrib["name"].partition("[")
        game = params.split("-")[0].rstrip("]")
        ran[game] += 1
        for failure in case.iter("failure"):
            failures[game][function].append(failure.attrib.get("message", ""))
    return failures, ran


@pytest.fixture(scope="module")
def caught(tmp_path_factory: pytest.TempPathFactory) -> tuple[Failures, dict[str, int]]:
    return run_suite(tmp_path_factory.mktemp("planted") / "report.xml")


@pytest.mark.slow
def test_every_planted_game_is_played_and_caught(caught: tuple[Failures, dict[str, int]]) -> None:
    failures, ran = caught
    for name in NAMES:
        assert ran[name] > 10, f"the suite ran {ran[name]} tests of {name}"
        assert failures[name], f"the conformance suite passed {name}, which has a rule bug"


@pytest.mark.slow
def test_an_engine_accepting_an_illegal_move_fails_the_offers_alone(
    caught: tuple[Failures, dict[str, int]],
) -> None:
    failures, _ = caught
    assert set(failures["laxoceans"]) == {ILLEGAL}
    for message in failures["laxoceans"][ILLEGAL]:
        assert "laxoceans" in message and "accepted 'concede' from seat" in message
        assert "not among its legal actions ['deal']" in message


@pytest.mark.slow
def test_an_engine_accepting_a_move_out_of_turn_is_caught(
    caught: tuple[Failures, dict[str, int]],
) -> None:
    failures, _ = caught
    assert ILLEGAL in failures["turnless"]
    for messages in failures["turnless"].values():
        assert all("turnless" in m and "accepted" in m and "from seat" in m for m in messages)


@pytest.mark.slow
def test_an_ignored_option_fails_the_option_check_alone(
    caught: tuple[Failures, dict[str, int]],
) -> None:
    failures, _ = caught
    assert set(failures["stakes"]) == {OPTION}
    (message,) = failures["stakes"][OPTION]
    assert "stakes option 'stake' changed no observation, legal action or result" in message
    assert "the engine ignores it" in message


@pytest.mark.slow
def test_a_game_that_never_ends_fails_every_path_that_plays_it_naming_it(
    caught: tuple[Failures, dict[str, int]],
) -> None:
    failures, _ = caught
    # the match paths (the referee's loop) hung before they were capped
    assert {
        "test_every_message_of_a_match_fits_its_schema",
        "test_every_house_bot_plays_a_match_without_a_fault",
        "test_random_games_run_to_an_end_with_a_proper_result",
        ILLEGAL,
        OPTION,
    } <= set(failures["endless"])
    for messages in failures["endless"].values():
        assert all("endless with" in m and "did not end within" in m for m in messages)
