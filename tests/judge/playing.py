"""Games played out by house policies, for the bot tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from judge.bots import Policy
from judge.engine import Game

G = TypeVar("G", bound=Game)


def play_out(game: G, bots: Sequence[Policy]) -> G:
    """Play ``game`` to its end, each seat's bot choosing its moves; the test fails at the
    first action that is not among the legal ones the bot was given."""
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        action = bots[seat].act(game.observation(seat), legal)
        assert action in legal
        game.apply(seat, action)
    return game
