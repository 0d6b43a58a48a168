"""``python -m judge replay --sandbox docker --lifecycle pool``: a bot author re-asks a
recorded bot under the server's lifecycle (a fresh process per seating in pooled
containers, none serving two seatings), and nothing is left when the command ends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli import main
from tests.sandbox.attacks import harness

POLITE = Path(__file__).resolve().parents[1] / "judge" / "hostile" / "polite.py"


def replay_containers() -> list[str]:
    """Containers the pooled replay made (labelled replay-pool)."""
    rows = harness.client().api.containers(all=True, filters={"label": "cardjudge.sandbox"})
    return [
        row["Id"]
        for row in rows
        if (row.get("Labels") or {}).get("cardjudge.match", "").startswith("replay-pool")
    ]


@pytest.mark.docker
@pytest.mark.parametrize("lifecycle", ["pool", "fresh"])
def test_a_recorded_bot_answers_the_same_under_either_lifecycle(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lifecycle: str
) -> None:
    path = tmp_path / "match.json"
    status = main(
        ["play", "bigtwo", "--seed", "11", "--duplicate", "--replay", str(path),
         str(POLITE), "house:greedy"]
    )  # fmt: skip
    assert status == 0, capsys.readouterr().err
    seatings = len(json.loads(path.read_text())["games"])
    capsys.readouterr()
    status = main(
        ["replay", str(path), "--bot", "0", str(POLITE), "--sandbox", "docker",
         "--lifecycle", lifecycle]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    assert "bot 0:" in out and ", 0 differ" in out and seatings == 2
    assert replay_containers() == []


def test_a_replay_lifecycle_needs_docker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "match.json"
    assert main(["play", "bigtwo", "--replay", str(path), "house:random", "house:random"]) == 0
    capsys.readouterr()
    status = main(["replay", str(path), "--bot", "0", str(POLITE), "--lifecycle", "pool"])
    assert status == 2
    assert "--lifecycle needs --sandbox docker" in capsys.readouterr().err
