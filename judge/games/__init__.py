"""The registry of games: a name on the command line or in the protocol, and its engine.

Each game is one self-describing class (judge.engine.Game: title, variants, table sizes,
option bounds, private keys, house bots, demo and check settings); the rest of the system
reads only that. Adding a game is its module plus one line in ``GAME_CLASSES``
(docs/adding-a-game.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judge.engine import Game, GameError, JSONDict
from judge.games.bigtwo import BigTwo
from judge.games.fifteen35 import FifteenThirtyFive
from judge.games.oceans11 import Oceans11

#: Every game, one line each, in the order pages list them.
GAME_CLASSES: tuple[type[Game], ...] = (
    Oceans11,
    BigTwo,
    FifteenThirtyFive,
)
#: Game name -> its engine class (tests may add a game with ``register``).
GAMES: dict[str, type[Game]] = {cls.name: cls for cls in GAME_CLASSES}


def game_class(name: str) -> type[Game]:
    """The engine class of a game name, or GameError naming the games there are."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise GameError(f"no game {name!r}; choose one of {sorted(GAMES)}") from None


def register(cls: type[Game]) -> type[Game]:
    """Add a game to the registry (for games defined outside judge/games, e.g. in tests)."""
    GAMES[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    GAMES.pop(name, None)


def title(name: str) -> str:
    """The name people read of a game (a stored game no longer registered shows its name)."""
    cls = GAMES.get(name)
    return cls.title or name if cls is not None else name


def choices() -> list[tuple[str, str]]:
    """(name, title) of every game, in the registry's order: for forms and menus."""
    return [(name, cls.title or name) for name, cls in GAMES.items()]


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
