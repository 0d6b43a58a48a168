"""The whole suite runs with a fourth game: the toy High Card (tests/judge/highcard/) is
registered before any test module is collected, and named in JUDGE_GAME_PLUGINS so that
every process a test starts (the CLI, web servers, workers) registers it too. So every
registry-driven test covers a game that exists only in the tests, and no test can pin the
set of games (docs/adding-a-game.md)."""

from __future__ import annotations

import os

from judge.games import PLUGINS_VARIABLE, register_plugins

TOY_GAMES = "tests.judge.highcard:HighCard"


def pytest_configure() -> None:
    """Register the toy here and in the environment the tests' subprocesses inherit."""
    named = [part for part in os.environ.get(PLUGINS_VARIABLE, "").split(",") if part]
    if TOY_GAMES not in named:
        os.environ[PLUGINS_VARIABLE] = ",".join([*named, TOY_GAMES])
    register_plugins()
