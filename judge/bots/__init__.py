"""House bots: reference players for every game, written as policies.

A policy sees exactly what a protocol bot sees (its seat's observation and the legal
actions) and returns one of the legal actions. The referee runs a house bot either
in-process (fast, for tests and benchmarks) or as a separate process speaking the
protocol like any uploaded bot (``house:NAME`` on the command line).

Each game's package holds its own in ``bots.py`` (``judge/games/<game>/bots.py``), whose
``POLICIES`` maps a name to a factory taking a seed. ``random`` is shared by all games and
defined here.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from judge.engine import Action, GameError


class Policy(Protocol):
    """A player: given what its seat sees and what it may do, pick one legal action."""

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action: ...


PolicyFactory = Callable[[int], Policy]


class RandomPolicy:
    """Uniform over the legal actions: the floor every other bot must beat."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        return self.rng.choice(legal)


def policies(game: str) -> dict[str, PolicyFactory]:
    """Every house bot of ``game``, by name (``random`` and the game's own ``bots.py``)."""
    from judge.games import game_class, parts  # the registry imports every engine

    module = parts.part_module(game_class(game), "bots")
    own: dict[str, PolicyFactory] = module.POLICIES if module is not None else {}
    return {"random": RandomPolicy, **own}


def house_policy(game: str, name: str, seed: int = 0) -> Policy:
    """A new house bot ``name`` of ``game``, seeded; GameError lists the names there are."""
    found = policies(game)
    if name not in found:
        raise GameError(f"no house bot {name!r} for {game}; choose one of {sorted(found)}")
    return found[name](seed)
