"""The registry of games: a name on the command line or in the protocol, and its engine.

Each game is one package, ``judge/games/NAME/``: its ``__init__`` is a self-describing
class (judge.engine.Game: title, variants, table sizes, option bounds, private keys, moves
per game and repeat options for budgets, demo and check settings), and beside it the files
judge.games.parts finds by name (house bots, narration, replay renderer, seed bots, rules
page). The rest of the system reads only this registry; adding a game is its package plus
its import here and its entry in ``GAME_CLASSES`` (docs/adding-a-game.md). Registering a
class checks it against the interface (judge.games.interface): an attribute the interface
does not know is refused by name, never silently ignored.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from judge.engine import Game, GameError, JSONDict
from judge.games import parts
from judge.games.bigtwo import BigTwo
from judge.games.fifteen35 import FifteenThirtyFive
from judge.games.interface import checked
from judge.games.oceans11 import Oceans11

#: Every game (each imported above), in the order pages list them.
GAME_CLASSES: tuple[type[Game], ...] = (
    Oceans11,
    BigTwo,
    FifteenThirtyFive,
)
#: Game name -> its engine class (tests may add a game with ``register``).
GAMES: dict[str, type[Game]] = {cls.name: checked(cls) for cls in GAME_CLASSES}


def game_class(name: str) -> type[Game]:
    """The engine class of a game name, or GameError naming the games there are."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise GameError(f"no game {name!r}; choose one of {sorted(GAMES)}") from None


#: The environment variable naming games defined outside judge/games ("module:Class", comma-
#: separated): every process of the service (web, workers, commands) registers them.
PLUGINS_VARIABLE = "JUDGE_GAME_PLUGINS"


def plugin_class(spec: str) -> type[Game]:
    """The game class ``module:Class`` names, or GameError saying what is wrong with it."""
    module_name, _, class_name = spec.strip().partition(":")
    try:
        found = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as error:
        raise GameError(f"{PLUGINS_VARIABLE}: cannot load {spec!r} ({error})") from None
    if not (isinstance(found, type) and issubclass(found, Game)):
        raise GameError(f"{PLUGINS_VARIABLE}: {spec!r} is not a judge.engine.Game class")
    return found


def register_plugins(value: str | None = None) -> None:
    """Register every game ``JUDGE_GAME_PLUGINS`` (or ``value``) names."""
    text = os.environ.get(PLUGINS_VARIABLE, "") if value is None else value
    for spec in filter(None, (part.strip() for part in text.split(","))):
        register(plugin_class(spec))


def register(cls: type[Game]) -> type[Game]:
    """Add a game to the registry (for games defined outside judge/games, e.g. in tests),
    once it fits the interface (GameError naming what does not)."""
    GAMES[cls.name] = checked(cls)
    return cls


def unregister(name: str) -> None:
    GAMES.pop(name, None)


register_plugins()


def title(name: str) -> str:
    """The name people read of a game (a stored game no longer registered shows its name)."""
    cls = GAMES.get(name)
    return cls.title or name if cls is not None else name


def choices() -> list[tuple[str, str]]:
    """(name, title) of every game, in the registry's order: for forms and menus."""
    return [(name, cls.title or name) for name, cls in GAMES.items()]


def moves_estimate(name: str, options: Mapping[str, Any] | None = None, players: int = 0) -> int:
    """Moves one game of ``name`` with ``options`` at a table of ``players`` takes at most
    in ordinary play (the service's match budget is built from it)."""
    return game_class(name).moves_estimate(options, players)


def narration(name: str) -> ModuleType | None:
    """The game's narration module (``events``, ``outcome``), or None: told generically."""
    return parts.part_module(game_class(name), "narration")


def renderer_file(name: str) -> Path | None:
    """The game's replay renderer script, or None when the generic renderer shows it."""
    return parts.renderer_file(game_class(name))


def rules_file(name: str) -> Path | None:
    """The game's rules page (Markdown), or None when it has none."""
    return parts.rules_file(game_class(name))


def rules_tests_file(name: str) -> Path | None:
    """The game's rules with the tests that check them (for implementers), or None."""
    return parts.rules_tests_file(game_class(name))


def seed_files(name: str) -> dict[str, Path]:
    """The game's example bots (name -> file), played by the demo; may be empty."""
    return parts.seed_files(game_class(name))


def new_game(
    name: str,
    seed: int,
    players: int | None = None,
    variant: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Game:
    """Make a game of ``name`` from its seed, players, variant and options."""
    return game_class(name)(seed, players=players, variant=variant, options=options)


def starting_game(record: Mapping[str, Any]) -> Game:
    """The game of a game record as it starts: from its game, seed, players, variant and
    options (KeyError if the record lacks one)."""
    return new_game(
        record["game"],
        record["seed"],
        players=record["players"],
        variant=record["variant"],
        options=record["options"],
    )


def replay(record: JSONDict) -> Game:
    """Make the game of ``record`` again and apply its actions; raises if one is illegal.

    The deck orders are re-derived from the seed and must equal the recorded ones, so a
    record whose cards were tampered with is refused.
    """
    game = starting_game(record)
    for seat, action in record["actions"]:
        game.apply(seat, action)
    if "deck_orders" in record and record["deck_orders"] != game.deck_orders:
        raise GameError("the recorded deck orders differ from those the seed gives")
    return game
