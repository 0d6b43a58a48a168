"""House bots play the same match in Docker as with local processes, for every game: the
sandbox changes where a bot runs, never what happens."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from judge.bots import policies
from judge.cli.sandboxing import PreparedBot, SandboxChannel, prepare_bot, starter
from judge.games import GAMES, new_game
from judge.referee import MatchOutcome, MatchSpec, TimeControl, play_match
from sandbox.limits import Limits
from sandbox.local import LocalBackend, NotASandboxWarning
from sandbox.parallel import SeatStart, start_many
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

#: Generous clocks: the comparison is about results, not speed, on a busy machine.
CLOCK = TimeControl(startup_s=20.0, move_s=5.0, bank_s=20.0)
LIMITS = Limits()


#: House bots whose choices depend on the machine's speed: montecarlo stops its playouts at a
#: time cap (30 ms a decision), so on a loaded machine Docker and local runs choose differently.
TIMED = {"montecarlo"}


def house_bots(game: str, workdir: Path) -> list[PreparedBot]:
    names = sorted(set(policies(game)) - TIMED)
    players = new_game(game, 1).players
    return [
        prepare_bot(f"house:{names[seat % len(names)]}", game, workdir, seed=100 + seat)
        for seat in range(players)
    ]


def in_docker(spec: MatchSpec, bots: list[PreparedBot]) -> MatchOutcome:
    seats = [
        SeatStart(bot.folder, harness.label(f"house{i}"), LIMITS) for i, bot in enumerate(bots)
    ]
    channels = start_many(harness.pipe_backend(), seats)
    infos = [bot.info for bot in bots]
    return play_match(spec, infos, lambda i: SandboxChannel(channels[i]))


def locally(spec: MatchSpec, bots: list[PreparedBot]) -> MatchOutcome:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        backend = LocalBackend()
    start = starter(backend, bots, label="local", limits=LIMITS)
    return play_match(spec, [bot.info for bot in bots], start)


def essence(outcome: MatchOutcome) -> dict[str, Any]:
    """What must not depend on the sandbox: results, faults and every action played."""
    return {
        "scores": outcome.scores,
        "places": outcome.places,
        "faults": [fault.to_json() for fault in outcome.faults],
        "actions": [played["record"]["actions"] for played in outcome.record["games"]],
    }


@pytest.mark.parametrize("game", sorted(GAMES))
def test_house_bots_play_the_same_match_in_docker_as_locally(tmp_path: Path, game: str) -> None:
    bots = house_bots(game, tmp_path)
    spec = MatchSpec(game, seed=2024, games=2, time=CLOCK)
    docker_outcome = in_docker(spec, bots)
    assert docker_outcome.faults == []
    assert all(essence(docker_outcome)["actions"])  # both games were really played
    assert essence(docker_outcome) == essence(locally(spec, bots))


def test_no_container_of_these_matches_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
