"""``python -m judge duel GAME A B``: a duel of house bots run by the local referee."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from judge.cli import main


def duel(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["duel", *argv])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def rounds(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def test_a_much_stronger_b_is_accepted_as_stronger(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = duel(
        capsys, "oceans11", "house:random", "house:greedy",
        "--seed", "1", "--pairs-per-round", "30", "--json",
    )  # fmt: skip
    assert status == 0, err
    states = rounds(out)
    last = states[-1]
    assert last["decision"] == "H1" and last["llr"] >= last["bounds"][1]
    assert all(s["decision"] == "running" for s in states[:-1])
    # The test stops at the pair that crosses the bound; the round's later pairs are its
    # overshoot, played but not counted.
    assert sum(last["pentanomial"]) == last["pairs"] == last["looks"]
    assert last["pairs"] + last["overshoot"]["pairs"] == 30 * len(states)
    assert last["elo"]["low"] > 0


def test_a_much_weaker_b_is_refused_in_words_and_charted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chart = tmp_path / "duel.svg"
    status, out, err = duel(
        capsys, "oceans11", "house:greedy", "house:random", "--seed", "2",
        "--pairs-per-round", "30", "--chart", str(chart),
    )  # fmt: skip
    assert status == 0, err
    assert out[0].startswith("duel oceans11: B house:random against A house:greedy")
    assert "H0 accepted: B is not 20 Elo stronger than A (false-negative rate 0.05)" in out
    assert out[-1].startswith("B - A: -")
    svg = ElementTree.fromstring(chart.read_text())
    line = svg.find("{http://www.w3.org/2000/svg}polyline")
    assert line is not None
    rounds_played = sum(1 for text in out if text.startswith("pairs "))
    assert len(line.attrib["points"].split()) == rounds_played + 1  # the origin, each round


def test_two_identical_random_house_bots_do_not_mirror_each_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Seeded by seat, B in the second game replayed A's first game and every pair tied
    # (issue 47: H0 after 100 games with the interval [-0.0, -0.0]).
    status, out, err = duel(
        capsys, "oceans11", "house:random", "house:random", "--seed", "1",
        "--max-games", "100", "--pairs-per-round", "25", "--json",
    )  # fmt: skip
    assert status in (0, 1), err
    last = rounds(out)[-1]
    counts = last["pentanomial"]
    assert counts[2] < sum(counts), f"every pair tied: {counts}"
    assert last["elo"]["low"] < last["elo"]["high"]


def test_the_cap_ends_an_undecided_duel_of_four_player_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = duel(
        capsys, "bigtwo", "house:greedy", "house:greedy", "--seed", "3",
        "--max-games", "8", "--pairs-per-round", "3", "--option", "straights=poker", "--json",
    )  # fmt: skip
    assert status == 1, err
    states = rounds(out)
    assert [s["games"] for s in states] == [6, 8]  # the last round is cut to the cap
    assert states[-1]["decision"] == "cap"
    # The same seeded bot on both sides of the same deals: what B wins in one game of a
    # pair, A wins in the other, so every pair scores 1 of 2.
    assert states[-1]["pentanomial"] == [0, 0, 4, 0, 0]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--elo0", "10", "--elo1", "5"], "elo0 < elo1"),
        (["--players", "9"], "played by 2 to 4 players, not 9"),
        (["--pairs-per-round", "0"], "--pairs-per-round must be from 1 to 100"),
        (["--max-games", "7"], "even number"),
        (["--move-time", "0"], "above 0"),
        (["--option", "deals=0"], "--option"),
    ],
)
def test_duel_refuses_bad_requests_clearly(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    status, _out, err = duel(capsys, "bigtwo", "house:random", "house:greedy", *argv)
    assert status == 2 and says in err


def test_an_unknown_bot_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = duel(capsys, "bigtwo", "house:random", "house:genius", "--max-games", "2")
    assert status == 2 and "no house bot 'genius'" in err


@pytest.mark.docker
def test_a_duel_runs_its_bots_in_docker(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = duel(
        capsys, "oceans11", "house:random", "house:greedy", "--sandbox", "docker",
        "--seed", "4", "--max-games", "4", "--pairs-per-round", "2", "--json",
    )  # fmt: skip
    assert status == 1, err
    assert rounds(out)[-1]["games"] == 4 and "security boundary" not in err
