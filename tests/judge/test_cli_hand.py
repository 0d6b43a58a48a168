"""``python -m judge hand``: rows in, one JSON object per row out, clear errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from judge.cli import main


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str, stdin: str = ""
) -> tuple[int, list[dict[str, object]], str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(["hand", *argv])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err


def test_it_evaluates_the_row_given_as_arguments(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, rows, err = run(capsys, monkeypatch, "Kh", "Kd", "Ks", "5c", "5d", "2h")
    assert status == 0 and err == ""
    assert rows == [
        {
            "cards": ["Kh", "Kd", "Ks", "5c", "5d", "2h"],
            "category": "full house",
            "name": "full house, kings over fives",
            "best": ["Kh", "Kd", "Ks", "5c", "5d"],
            "stands_for": ["Kh", "Kd", "Ks", "5c", "5d"],
            "key": [6, 12, 12, 12, 4, 4],
        }
    ]


def test_it_evaluates_one_row_per_line_of_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, rows, _ = run(capsys, monkeypatch, stdin="As\n\nAh JK 9h 4h 2h\n7c,7d\n")
    assert status == 0
    assert [r["name"] for r in rows] == ["high card, ace", "flush, ace high", "pair of sevens"]
    assert rows[1]["best"] == ["Ah", "JK", "9h", "4h", "2h"]
    assert rows[1]["stands_for"] == ["Ah", "Kh", "9h", "4h", "2h"]


def test_keys_compare_as_lists_to_order_hands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, rows, _ = run(
        capsys, monkeypatch, stdin="As\nKs Kd\nKh Kc\nKh Kc 3d\n2c 3c 4c 5c 6c\nJK As\n"
    )
    keys = [r["key"] for r in rows]
    assert keys[0] < keys[1] == keys[2] < keys[3] < keys[4]
    assert keys[5] == [1, 13, 13, 0, 0, 0]


def test_wild_cards_follow_the_variant(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, standard, _ = run(capsys, monkeypatch, "2c", "Kd", "Ks")
    _, deuces, _ = run(capsys, monkeypatch, "--variant", "deuces-wild", "2c", "Kd", "Ks")
    assert standard[0]["name"] == "pair of kings"
    assert deuces[0]["name"] == "three of a kind, kings"


def test_a_bad_token_is_named_on_stderr_with_exit_status_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, rows, err = run(capsys, monkeypatch, "As", "1h")
    assert status == 2 and rows == []
    assert "'1h'" in err


def test_a_bad_stdin_line_is_named_by_its_number(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, rows, err = run(capsys, monkeypatch, stdin="As\nKs Qx\n")
    assert status == 2 and len(rows) == 1
    assert "line 2:" in err and "Qx" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--variant", "no-wilds", "JK"], "no jokers"),
        (["--variant", "mini-joker", "JK", "JK"], "2 jokers"),
        (["Ts", "Ts"], "Ts is given twice"),
    ],
)
def test_cards_no_deck_of_the_variant_holds_are_refused(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    status, _, err = run(capsys, monkeypatch, *argv)
    assert status == 2 and message in err


def test_it_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "judge", "hand", "--variant", "five-suits"],
        input="9c 9d 9h 9s 9x\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["name"] == "five of a kind, nines"
