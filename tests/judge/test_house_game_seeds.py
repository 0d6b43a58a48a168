"""A house bot draws each game's random choices from a stream of its own (issue 47): its
choices in a game depend on its seed and the game's number, not on the games before. A
duel needs that: the two games of every pair (not only a round's first) must differ only
in who sits where, and the pair's second match plays the same deal with B and A having
played other games before it in other seats."""

from __future__ import annotations

import io
import json
from typing import Any

from judge import protocol
from judge.bots.house_main import HouseBot
from judge.players import house_channel
from judge.runtime import botkit

LEGAL = [f"choice-{i}" for i in range(12)]


def act(game: int, move: int) -> dict[str, Any]:
    return protocol.act(
        game=game, move=move, seat=0, observation={}, legal=LEGAL, move_s=1.0, bank_s=10.0
    )


def in_process(games: list[int], seed: int, moves: int = 8) -> list[list[str]]:
    """The in-process house bot's choices, game by game, asked ``moves`` times a game."""
    channel = house_channel("oceans11", "random", seed)
    chosen = []
    for game in games:
        answers = []
        for move in range(moves):
            channel.send(protocol.encode(act(game, move)))
            answers.append(json.loads(channel.recv(0.0))["action"])
        chosen.append(answers)
    return chosen


def as_a_process(games: list[int], seed: int, moves: int = 8) -> list[list[str]]:
    """The same through ``judge.bots.house_main``'s bot, as the sandbox runs it."""
    hello = protocol.hello(
        bot=0, seat=0, game="oceans11", variant="", options={}, players=2, games=3, time={}
    )
    lines = [hello, *(act(game, move) for game in games for move in range(moves))]
    script = io.StringIO("".join(json.dumps(line) + "\n" for line in lines))
    out = io.StringIO()
    botkit.run(HouseBot("random", seed), script, out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()][1:]  # after ready
    actions = [answer["action"] for answer in answers]
    return [actions[i * moves : (i + 1) * moves] for i in range(len(games))]


def test_a_games_choices_do_not_depend_on_the_games_before() -> None:
    for play in (in_process, as_a_process):
        after_two = play([0, 1, 2], seed=5)[2]
        alone = play([2], seed=5)[0]
        assert after_two == alone, play.__name__


def test_each_game_and_each_seed_draws_its_own_stream() -> None:
    for play in (in_process, as_a_process):
        games = play([0, 1, 2], seed=5)
        assert len({tuple(g) for g in games}) == 3, play.__name__
        assert play([0], seed=6)[0] != games[0], play.__name__


def test_the_process_and_the_in_process_bot_choose_alike() -> None:
    assert in_process([0, 3, 4], seed=11) == as_a_process([0, 3, 4], seed=11)
