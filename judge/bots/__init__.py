"""House bots: reference players for every game, written as policies.

A policy sees exactly what a protocol bot sees (its seat's observation and the legal
actions) and returns one of the legal actions. The referee runs a house bot either
in-process (fast, for tests and benchmarks) or as a separate process speaking the
protocol like any uploaded bot (``house:NAME`` on the command line).

Each game's package holds its own in ``bots.py`` (``judge/games/<game>/bots.py``), whose
``POLICIES`` maps a name to a factory taking a seed. ``random`` is shared by all games and
defined here, and so is ``spread``, the opponent of a check's further matches, which
``house_policy`` makes but ``policies`` does not list: nobody picks it for a match. A
game's ``bots.py`` may give its own unlisted ones in ``UNLISTED`` (Big Two's ``spread``
leads triples, which the shared one seldom does).
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


class SpreadPolicy:
    """A random legal action, drawn first by its kind (its number of cards, or its first
    word) and then within it: it leads a Big Two triple as often as a single, where
    ``random`` leads mostly five-card hands (there are most of them), so the bot a check
    plays it against meets every kind of situation sooner."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        kinds: dict[int | str, list[Action]] = {}
        for action in legal:
            kind = len(action) if isinstance(action, list) else action.split(" ", 1)[0]
            kinds.setdefault(kind, []).append(action)
        return self.rng.choice(self.rng.choice(list(kinds.values())))


#: House bots a match can be given by the service itself, never listed for people to pick.
UNLISTED: dict[str, PolicyFactory] = {"spread": SpreadPolicy}


def policies(game: str) -> dict[str, PolicyFactory]:
    """Every house bot of ``game``, by name (``random`` and the game's own ``bots.py``)."""
    from judge.games import game_class, parts  # the registry imports every engine

    module = parts.part_module(game_class(game), "bots")
    own: dict[str, PolicyFactory] = module.POLICIES if module is not None else {}
    return {"random": RandomPolicy, **own}


def game_seed(seed: int, game: int) -> int:
    """The seed of a house bot's choices in game ``game`` (its number in the match) for a
    bot seeded ``seed``: each game draws from its own stream, so a bot's choices in a game
    depend on the game and its seed alone, not on how many draws earlier games took. A
    duel needs that (issue 47): the two games of every pair, not only a round's first,
    must differ only in who sits where."""
    from judge.rng import derive_seed

    return derive_seed(seed, "game", game)


def house_policy(game: str, name: str, seed: int = 0) -> Policy:
    """A new house bot ``name`` of ``game``, seeded; GameError lists the names there are."""
    from judge.games import game_class, parts

    module = parts.part_module(game_class(game), "bots")
    own: dict[str, PolicyFactory] = getattr(module, "UNLISTED", {}) if module else {}
    found = {**policies(game), **UNLISTED, **own}
    if name not in found:
        listed = sorted(policies(game))
        raise GameError(f"no house bot {name!r} for {game}; choose one of {listed}")
    return found[name](seed)
