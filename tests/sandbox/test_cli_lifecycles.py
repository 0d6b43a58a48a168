"""``python -m judge play --sandbox docker --lifecycle pool|fresh --matches N``: a bot
author measures under the server's lifecycle. With ``pool`` the later matches take the
first one's containers (house bots included: their seed comes per seating), every match
is a result of its own, and nothing is left when the command ends."""

from __future__ import annotations

import json
import secrets
import tempfile
from pathlib import Path

import pytest

from judge.cli import main
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

STARTER = Path(__file__).resolve().parents[2] / "starters" / "python"


def play(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["play", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def containers_of(seed: int) -> list[str]:
    """This command's containers (labelled play-SEED-...)."""
    rows = harness.client().api.containers(all=True, filters={"label": "cardjudge.sandbox"})
    return [
        row["Id"]
        for row in rows
        if (row.get("Labels") or {}).get("cardjudge.match", "").startswith(f"play-{seed}-")
    ]


@pytest.mark.parametrize("lifecycle", ["pool", "fresh"])
def test_several_matches_under_the_servers_lifecycle(
    capsys: pytest.CaptureFixture[str], lifecycle: str
) -> None:
    seed = secrets.randbelow(1 << 40)
    pipes_before = set(Path(tempfile.gettempdir()).glob("judge-play-pipes-*"))
    status, out, err = play(
        capsys, "oceans11", str(STARTER), "house:random", "--sandbox", "docker",
        "--lifecycle", lifecycle, "--matches", "3", "--duplicate", "--games", "2",
        "--seed", str(seed), "--json",
    )  # fmt: skip
    assert status == 0, err
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["seed"] for r in results] == [seed, seed + 1, seed + 2]
    assert all(r["faults"] == [] and r["bots"] == ["python", "house:random"] for r in results)
    assert "3 matches in" in err
    if lifecycle == "pool":  # two bots, two seatings: 4 started, then 4 reused per match
        assert "pool: 8 containers reused, 4 started" in err
    else:
        assert "pool:" not in err
    for number in range(3):
        assert containers_of(seed + number) == []
    assert set(Path(tempfile.gettempdir()).glob("judge-play-pipes-*")) <= pipes_before


def test_a_lifecycle_needs_docker(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = play(capsys, "oceans11", "house:random", "house:greedy", "--lifecycle", "pool")
    assert status == 2
    assert "--lifecycle needs --sandbox docker" in err
    status, _, err = play(capsys, "oceans11", "house:random", "house:greedy", "--matches", "0")
    assert status == 2
    assert "--matches must be from 1 to 10000, not 0" in err


def test_a_bot_that_exits_is_said_to_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    quitter = tmp_path / "quitter.py"
    quitter.write_text("import sys\nsys.exit(0)\n")
    status, out, err = play(
        capsys, "oceans11", str(quitter), "house:random", "--sandbox", "docker",
        "--lifecycle", "pool", "--json",
    )  # fmt: skip
    assert status == 0, err
    (fault,) = json.loads(out)["faults"]
    assert fault["reason"] == "the bot's output ended (it exited or closed its standard output)"
