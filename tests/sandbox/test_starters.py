"""Every starter bot (starters/LANGUAGE, one per runtime, for every game) builds in the
sandbox and plays a whole match of every game without a fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.cli.sandboxing import prepare_bot, starter
from judge.games import GAMES, new_game
from judge.referee import MatchSpec, TimeControl, play_match
from sandbox.limits import Limits
from sandbox.runtimes import RUNTIMES
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

STARTERS = Path(__file__).resolve().parents[2] / "starters"
#: Generous clocks: this is about legal play, not speed, on a busy machine.
CLOCK = TimeControl(startup_s=60.0, move_s=10.0, bank_s=60.0)


def test_there_is_one_starter_per_runtime() -> None:
    assert sorted(p.name for p in STARTERS.iterdir() if p.is_dir()) == sorted(RUNTIMES)
    for name, runtime in RUNTIMES.items():
        assert (STARTERS / name / runtime.entry).is_file()


@pytest.mark.parametrize("language", sorted(RUNTIMES))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_starter_plays_a_legal_match(tmp_path: Path, game: str, language: str) -> None:
    players = new_game(game, 1).players
    bots = [prepare_bot(str(STARTERS / language), game, tmp_path)]
    bots += [prepare_bot("house:random", game, tmp_path, seed=s) for s in range(1, players)]
    start = starter(
        harness.pipe_backend(), bots, label=harness.label(f"{language}-{game}"), limits=Limits()
    )
    spec = MatchSpec(game=game, seed=7, players=players, games=2, time=CLOCK)
    outcome = play_match(spec, [bot.info for bot in bots], start)
    assert [fault.to_json() for fault in outcome.faults] == []
    assert len(outcome.record["games"]) == 2
    assert harness.leftovers_of_this_run() == []
