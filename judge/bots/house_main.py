"""A house bot as a program speaking the protocol, so ``house:NAME`` is a real process.

``python -m judge.bots.house_main NAME [SEED]`` (or a bot folder whose main.py calls
``main``) learns the game from ``hello`` and answers every ``act`` with the house policy
NAME of that game, seeded by SEED: the same bot an uploaded one plays against. Each game
of the match draws from its own stream (``judge.bots.game_seed``), as in-process house
bots do (``judge.players.house_channel``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from judge.bots import Policy, game_seed, house_policy
from judge.engine import Action
from judge.runtime import botkit


class HouseBot:
    """Learns the game from ``hello``; makes its policy afresh for each game of the match,
    seeded for that game, and defers every choice to it."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.seed = seed
        self.game = ""
        self.playing = -1
        self.policy: Policy | None = None

    def hello(self, message: dict[str, Any]) -> None:
        self.game = message["game"]
        house_policy(self.game, self.name)  # an unknown name fails at once, not at a move

    def act(self, observation: dict[str, Any], legal: list[Action], message: Any) -> Action:
        assert self.game, "act before hello"
        if self.policy is None or message["game"] != self.playing:
            self.playing = message["game"]
            self.policy = house_policy(self.game, self.name, game_seed(self.seed, self.playing))
        return self.policy.act(observation, legal)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not 1 <= len(args) <= 2:
        print("usage: python -m judge.bots.house_main NAME [SEED]", file=sys.stderr)
        return 2
    botkit.run(HouseBot(args[0], int(args[1]) if len(args) > 1 else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
