"""In-process players: a house policy behind the same channel interface as a bot process.

``PolicyChannel`` answers the referee's lines by calling a ``Policy`` directly, with the
same JSON encoding and decoding as a real bot, so tests and benchmarks run whole matches
without starting processes, and any difference from a process-backed match is only the
pipes and the interpreter start-up.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Sequence

from judge import protocol
from judge.bots import Policy, game_seed, house_policy
from judge.channel import BotGone, BotTimeout
from judge.referee import BotInfo, StartBot
from judge.rng import derive_seed


class PolicyChannel:
    """A ``BotChannel`` whose bot is a policy called in this process. With ``per_game``,
    the policy is made afresh for each game of the match (``per_game(game number)``)."""

    def __init__(self, policy: Policy, per_game: Callable[[int], Policy] | None = None) -> None:
        self.policy = policy
        self.per_game = per_game
        self.playing = -1
        self.answers: deque[bytes] = deque()
        self.closed = False

    def send(self, line: bytes) -> None:
        if self.closed:
            raise BotGone("the player was closed")
        message = json.loads(line)
        if message["type"] == "hello":
            self.answers.append(protocol.encode(protocol.ready()))
        elif message["type"] == "act":
            if self.per_game is not None and message["game"] != self.playing:
                self.playing = message["game"]
                self.policy = self.per_game(self.playing)
            chosen = self.policy.act(message["observation"], message["legal"])
            self.answers.append(protocol.encode(protocol.action(chosen)))

    def recv(self, deadline: float) -> bytes:
        if self.answers:
            return self.answers.popleft()
        if self.closed:
            raise BotGone("the player was closed")
        raise BotTimeout("the player has nothing to say")

    def stderr(self) -> bytes:
        return b""

    def close(self) -> None:
        self.closed = True


def house_seed(match_seed: int, bot: int) -> int:
    """The seed of house bot number ``bot`` in a match: reproducible, different per bot."""
    return derive_seed(match_seed, "house", bot)


def house_channel(game: str, name: str, seed: int) -> PolicyChannel:
    """House bot ``name`` of ``game`` in this process, seeded ``seed``: like the process of
    ``judge.bots.house_main``, a policy made afresh for each game, seeded for that game."""
    return PolicyChannel(
        house_policy(game, name, seed),
        per_game=lambda number: house_policy(game, name, game_seed(seed, number)),
    )


def house_players(
    game: str, names: Sequence[str], match_seed: int
) -> tuple[list[BotInfo], StartBot]:
    """Bots and a starter for ``play_match`` made of in-process house policies ``names``."""
    bots = [BotInfo(f"house:{name}") for name in names]

    def start(index: int) -> PolicyChannel:
        return house_channel(game, names[index], house_seed(match_seed, index))

    for name in names:
        house_policy(game, name)  # refuses an unknown name before the match starts
    return bots, start
