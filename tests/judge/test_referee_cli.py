"""``python -m judge play`` and ``replay``: the local runner a bot author uses."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from judge.cli import main
from judge.cli.sandboxing import SandboxUnavailable, content_hash, make_backend

POLITE = Path(__file__).parent / "hostile" / "polite.py"


def play(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["play", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_play_prints_one_json_object_with_the_match_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = play(
        capsys, "fifteen35", "--seed", "4", "--games", "2", "--json",
        "house:random", "house:greedy", str(POLITE),
    )  # fmt: skip
    assert status == 0, err
    result = json.loads(out)
    assert {"game", "variant", "seed", "bots", "scores", "places", "faults"} <= set(result)
    assert result["game"] == "fifteen35" and result["seed"] == 4
    assert result["bots"] == ["house:random", "house:greedy", "polite.py"]
    assert result["faults"] == [] and sum(result["scores"]) == 0
    assert "NOT a security boundary" in err


def test_play_prints_a_table_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = play(capsys, "bigtwo", "--seed", "1", "house:random", "house:greedy")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "bigtwo (standard), seed 1, 1 game(s)"
    places = [int(line.split()[0]) for line in lines[2:]]
    assert places == sorted(places) and len(places) == 2


def test_a_folder_bot_and_a_duplicate_match_are_recorded_and_verify(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "main.py").write_text(POLITE.read_text())
    record_path = tmp_path / "match.json"
    status, _out, err = play(
        capsys, "bigtwo", "--seed", "8", "--duplicate", "--replay", str(record_path),
        str(folder), "house:random",
    )  # fmt: skip
    assert status == 0, err
    record = json.loads(record_path.read_text())
    assert record["header"]["bots"][0] == {"name": "mybot", "hash": content_hash(folder)}
    assert [g["seating"] for g in record["games"]] == [[0, 1], [1, 0]]
    assert main(["replay", str(record_path), "--verify"]) == 0
    assert "verified: 2 game(s)" in capsys.readouterr().out


def test_verify_reports_a_tampered_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "match.json"
    play(capsys, "bigtwo", "--seed", "2", "--replay", str(path), "house:random", "house:random")
    record = json.loads(path.read_text())
    record["games"][0]["record"]["actions"].pop()
    path.write_text(json.dumps(record))
    assert main(["replay", str(path), "--verify"]) == 1
    assert "do not finish the game" in capsys.readouterr().out


def test_replaying_a_seat_shows_where_a_bot_answers_differently(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "match.json"
    play(capsys, "bigtwo", "--seed", "3", "--replay", str(path), str(POLITE), "house:greedy")
    assert main(["replay", str(path), "--seat", "0", str(POLITE)]) == 0
    assert "0 differ" in capsys.readouterr().out
    assert main(["replay", str(path), "--seat", "0", "house:greedy"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS game 0 move" in out and "the bot answered" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["bigtwo", "nothing-here.py", "house:random"], "neither a .py file"),
        (["bigtwo", "house:genius", "house:random"], "no house bot 'genius'"),
        (["bigtwo", "--variant", "huge", "house:random", "house:random"], "no variant 'huge'"),
        (["bigtwo", "--players", "3", "house:random", "house:random"], "3 players need 3 bots"),
        (["bigtwo", "--games", "0", "house:random", "house:random"], "at least 1 game, not 0"),
        (["bigtwo", "--move-time", "0", "house:random", "house:random"], "above 0"),
    ],
)
def test_play_refuses_bad_requests_clearly(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    status, _out, err = play(capsys, *argv)
    assert status == 2 and says in err


def test_docker_that_cannot_start_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def __init__(self) -> None:
            raise ConnectionError("Error while fetching server API version")

    fake = types.ModuleType("sandbox.docker_backend")
    fake.DockerBackend = Broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sandbox.docker_backend", fake)
    with pytest.raises(SandboxUnavailable, match="is the Docker engine running"):
        make_backend("docker")


def test_a_replay_of_a_missing_file_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/match.json", "--verify"]) == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.docker
def test_play_runs_bots_in_docker_containers(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = play(
        capsys, "oceans11", "--seed", "5", "--sandbox", "docker", "--json",
        "house:random", str(POLITE),
    )  # fmt: skip
    assert status == 0, err
    result = json.loads(out)
    assert result["faults"] == [] and result["bots"] == ["house:random", "polite.py"]
    assert "security boundary" not in err


#: A protocol bot that plays action 0, but only in the seat it was greeted in: asked in
#: any other seat it answers an action that does not exist.
SEAT_KEEPER = """\
import json, sys
seat = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        seat = message["seat"]
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        choice = 0 if message["seat"] == seat else 10**6
        print(json.dumps({"type": "action", "action": choice}), flush=True)
    elif message["type"] == "match_over":
        break
"""


def decisions_of(record: dict[str, object], bot: int) -> int:
    games = record["games"]
    assert isinstance(games, list)
    return sum(
        1
        for played in games
        for who, _action in played["record"]["actions"]
        if played["seating"][who] == bot
    )


def test_replaying_a_bot_follows_it_from_seat_to_seat_in_a_duplicate_match(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    keeper = tmp_path / "keeper.py"
    keeper.write_text(SEAT_KEEPER)
    path = tmp_path / "match.json"
    status, _out, err = play(
        capsys, "bigtwo", "--seed", "6", "--duplicate", "--replay", str(path),
        "house:greedy", str(keeper),
    )  # fmt: skip
    assert status == 0, err
    record = json.loads(path.read_text())
    assert [g["seating"] for g in record["games"]] == [[0, 1], [1, 0]]
    assert record["faults"] == []
    assert main(["replay", str(path), "--bot", "1", str(keeper)]) == 0
    asked = decisions_of(record, 1)
    assert f"bot 1: {asked} decision(s) asked, 0 differ" in capsys.readouterr().out
    # Seat 1 was the keeper's in the first game only: in the second, greedy played there.
    assert main(["replay", str(path), "--seat", "1", str(keeper)]) == 1
    assert "DIFFERS game 1 move" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--bot", "2", "house:random"], "bot 2 does not exist; the match has bots 0 to 1"),
        (["--bot", "one", "house:random"], "--bot takes a number first, not 'one'"),
    ],
)
def test_replaying_a_bot_refuses_a_bad_request_clearly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], says: str
) -> None:
    path = tmp_path / "match.json"
    play(capsys, "bigtwo", "--seed", "2", "--replay", str(path), "house:random", "house:random")
    assert main(["replay", str(path), *argv]) == 2
    assert says in capsys.readouterr().err


def test_seat_and_bot_cannot_be_replayed_at_once(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", str(tmp_path / "m.json"), "--seat", "0", "x.py", "--bot", "0", "x.py"])
    assert exit_info.value.code == 2
