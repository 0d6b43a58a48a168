"""The registry of games: a name on the command line or in the protocol, and its engine.

Each game lives in its own module and is imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any

from judge.engine import Game, GameError, JSONDict

#: Game name -> "module:class" of its engine.
GAMES: dict[str, str] = {
    "oceans11": "judge.games.oceans11:Oceans11",
    "bigtwo": "judge.games.bigtwo:BigTwo",
    "fifteen35": "judge.games.fifteen35:FifteenThirtyFive",
}


def game_class(name: str) -> type[Game]:
    """The engine class of a game name, or GameError naming the games there are."""
    try:
        module_name, class_name = GAMES[name].split(":")
    except KeyError:
        raise GameError(f"no game {name!r}; choose one of {sorted(GAMES)}") from None
    cls: type[Game] = getattr(import_module(module_name), class_name)
    return cls


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
