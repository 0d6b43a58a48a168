"""Registering a game checks its class against the interface: an attribute the interface
does not know (a stale or misspelt name) is refused by name, never silently ignored."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import ClassVar

import pytest

from judge.engine import Game, GameError
from judge.games import GAMES, register, register_plugins, unregister
from judge.games.interface import problems
from tests.judge.highcard import HighCard


class Stale(HighCard):
    """High Card that still declares an attribute from an older interface."""

    name = "stale"
    title = "High Card, stale"
    moves_per_deal = 2


class WrongKind(HighCard):
    name = "wrongkind"
    title = "High Card, wrong kind"
    zero_sum = "yes"  # type: ignore[assignment]


class BadName(HighCard):
    name = "High Card"


class OwnHelpers(HighCard):
    """Private constants and public methods are the game's own affair."""

    name = "ownhelpers"
    title = "High Card with helpers"
    _THRESHOLD: ClassVar[int] = 8

    def strong(self, seat: int) -> bool:
        return self._rank(seat) >= self._THRESHOLD


def test_an_attribute_the_interface_does_not_know_is_refused_naming_it() -> None:
    with pytest.raises(GameError) as refused:
        register(Stale)
    message = str(refused.value)
    assert "tests.judge.test_registry:Stale" in message
    assert "moves_per_deal is not an attribute of the game interface" in message
    assert "did you mean moves_per_game?" in message
    assert "stale" not in GAMES


def test_a_game_named_in_the_plugins_variable_is_checked_too() -> None:
    with pytest.raises(GameError, match="moves_per_deal"):
        register_plugins("tests.judge.test_registry:Stale")
    assert "stale" not in GAMES


def test_a_declared_attribute_of_the_wrong_kind_is_refused() -> None:
    assert problems(WrongKind) == ["zero_sum = 'yes' is not a bool"]


def test_a_name_that_cannot_be_a_url_part_is_refused() -> None:
    (problem,) = problems(BadName)
    assert problem.startswith("name = 'High Card': give the game a registry name")


def test_private_constants_and_public_methods_are_the_games_own() -> None:
    try:
        assert register(OwnHelpers) is OwnHelpers
    finally:
        unregister(OwnHelpers.name)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_fits_the_interface(name: str) -> None:
    assert problems(GAMES[name]) == []


def test_the_docs_example_class_declares_every_attribute_and_only_known_ones() -> None:
    """docs/adding-a-game.md's example class names each attribute of the interface a game
    declares (option_defaults is derived), and nothing the interface does not know."""
    text = (Path(__file__).resolve().parents[2] / "docs/adding-a-game.md").read_text()
    (block,) = re.findall(r"```python\n(class \w+\(Game\):\n.*?)```", text, re.S)
    names = {
        target.id
        for node in ast.walk(ast.parse(block))
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    data = {name for name in Game.__annotations__ if not name.startswith("_")}
    assert names == data - {"option_defaults"}
