"""A house bot as a program speaking the protocol, so ``house:NAME`` is a real process.

``python -m judge.bots.house_main NAME [SEED]`` (or a bot folder whose main.py calls
``main``) learns the game from ``hello`` and answers every ``act`` with the house policy
NAME of that game, seeded by SEED: the same bot an uploaded one plays against.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from judge.bots import Policy, house_policy
from judge.engine import Action
from judge.runtime import botkit


class HouseBot:
    """Makes its policy once the game is known, then defers every choice to it."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.seed = seed
        self.policy: Policy | None = None

    def hello(self, message: dict[str, Any]) -> None:
        self.policy = house_policy(message["game"], self.name, self.seed)

    def act(self, observation: dict[str, Any], legal: list[Action], message: Any) -> Action:
        assert self.policy is not None, "act before hello"
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
