"""Every real game through the referee: house bots as processes and in-process players.

Each game's matches must finish without faults, verify by re-simulation, and every
message the referee sends must fit its JSON Schema.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge import protocol
from judge.cli.sandboxing import prepare_bot, starter
from judge.games import GAMES as REGISTRY
from judge.players import house_players, house_seed
from judge.referee import MatchSpec, StartBot, TimeControl, play_match
from judge.replay import compare_seat, verify
from sandbox.local import LocalBackend, NotASandboxWarning
from tests.judge.fakes import validate_message

#: Every registered game, with its demo's table size (short enough for process matches).
GAMES = {name: cls.demo_format.get("table_size", cls.min_players) for name, cls in REGISTRY.items()}


class Recording:
    """Wraps a channel and validates every line the referee sends against its schema."""

    def __init__(self, inner: Any, seen: list[str]) -> None:
        self.inner = inner
        self.seen = seen

    def send(self, line: bytes) -> None:
        message = protocol.decode(line)
        validate_message(message)
        self.seen.append(message["type"])
        self.inner.send(line)

    def recv(self, deadline: float) -> bytes:
        line: bytes = self.inner.recv(deadline)
        return line

    def stderr(self) -> bytes:
        data: bytes = self.inner.stderr()
        return data

    def close(self) -> None:
        self.inner.close()


def recording(start: StartBot, seen: list[str]) -> StartBot:
    return lambda index: Recording(start(index), seen)


@pytest.fixture(scope="module")
def backend() -> Iterator[LocalBackend]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        yield LocalBackend(grace_s=0.5)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_random_house_bots_play_a_match_as_processes(
    game: str, backend: LocalBackend, tmp_path: Path
) -> None:
    players = GAMES[game]
    bots = [prepare_bot("house:random", game, tmp_path, seed=i) for i in range(players)]
    seen: list[str] = []
    start = recording(starter(backend, bots, label=f"test-{game}"), seen)
    spec = MatchSpec(game, seed=2026, games=2, time=TimeControl(startup_s=5.0))
    outcome = play_match(spec, [b.info for b in bots], start)
    assert outcome.faults == []
    assert verify(outcome.record) == []
    assert {"hello", "act", "game_over", "match_over"} <= set(seen)
    assert seen.count("match_over") == players
    assert all(log == "" for log in outcome.logs)
    assert sum(outcome.scores) == sum(sum(g["result"]["scores"]) for g in outcome.record["games"])


@pytest.mark.parametrize("game", sorted(GAMES))
def test_duplicate_matches_of_in_process_players_verify_and_fit_the_schemas(game: str) -> None:
    bots, start = house_players(game, ["random"] * GAMES[game], match_seed=5)
    seen: list[str] = []
    spec = MatchSpec(game, seed=5, games=2, duplicate=True)
    outcome = play_match(spec, bots, recording(start, seen))
    assert outcome.faults == []
    assert len(outcome.games) == 2 * GAMES[game]
    assert verify(outcome.record) == []
    deals = [g["record"]["deck_orders"] for g in outcome.record["games"]]
    assert deals[0] == deals[2] and deals[0] != deals[1]  # seating-major: deal 0, 1, 0, 1...


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_tampered_record_fails_verification(game: str) -> None:
    bots, start = house_players(game, ["random"] * GAMES[game], match_seed=9)
    record = play_match(MatchSpec(game, seed=9), bots, start).record
    record["games"][0]["result"]["scores"][0] += 1
    record["result"]["places"] = list(reversed(record["result"]["places"]))
    problems = verify(record)
    assert any("recorded result" in problem for problem in problems)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_replaying_a_seat_to_the_same_bot_reproduces_its_answers(game: str) -> None:
    bots, start = house_players(game, ["random"] * GAMES[game], match_seed=3)
    record = play_match(MatchSpec(game, seed=3, games=2), bots, start).record
    _bots, again = house_players(game, ["random"] * GAMES[game], match_seed=3)
    asked, differences = compare_seat(record, 1, again(1), clock=lambda: 0.0)
    assert asked > 0 and differences == []
    _bots, other = house_players(game, ["random"] * GAMES[game], match_seed=4)
    asked, differences = compare_seat(record, 1, other(1), clock=lambda: 0.0)
    assert differences and all(d.game in (0, 1) for d in differences)


def test_house_bots_play_the_same_as_processes_and_in_process(
    backend: LocalBackend, tmp_path: Path
) -> None:
    spec = MatchSpec("bigtwo", seed=77, players=2, games=2)
    names = ["random", "greedy"]
    bots = [
        prepare_bot(f"house:{name}", "bigtwo", tmp_path, seed=house_seed(77, index))
        for index, name in enumerate(names)
    ]
    as_processes = play_match(spec, [b.info for b in bots], starter(backend, bots, label="same"))
    infos, start = house_players("bigtwo", names, match_seed=77)
    in_process = play_match(spec, infos, start)
    assert as_processes.faults == [] == in_process.faults
    assert [g["record"] for g in as_processes.record["games"]] == [
        g["record"] for g in in_process.record["games"]
    ]
