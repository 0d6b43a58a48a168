"""Games played out by house policies, for the bot tests, and the cap on every game a
test plays: a game that never ends fails naming itself instead of hanging the test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from judge.bots import Policy
from judge.engine import Game

G = TypeVar("G", bound=Game)
#: A game may take this many times the moves its class estimates (random play is longer
#: than ordinary play), plus a margin, before it is taken to never end.
CAP_FACTOR, CAP_MARGIN = 10, 100


def action_cap(game: Game) -> int:
    """The most actions ``game`` may take before it is taken to never end."""
    return CAP_FACTOR * game.moves_estimate(game.options, game.players) + CAP_MARGIN


def never_ended(name: str, options: Mapping[str, Any], players: int, cap: int) -> str:
    """The failure of a game that ran past its action cap, naming the game."""
    return (
        f"{name} with {dict(options)} at {players} players did not end within {cap} "
        "actions: it never ends, or its moves_per_game is far too low"
    )


def play_out(game: G, bots: Sequence[Policy]) -> G:
    """Play ``game`` to its end, each seat's bot choosing its moves; the test fails at the
    first action that is not among the legal ones the bot was given, or past the cap."""
    cap = action_cap(game)
    for _ in range(cap):
        if game.is_over():
            return game
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        action = bots[seat].act(game.observation(seat), legal)
        assert action in legal
        game.apply(seat, action)
    assert game.is_over(), never_ended(game.name, game.options, game.players, cap)
    return game
