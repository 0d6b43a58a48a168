"""A bot's log cut by game: where each game's part starts, across duplicate seatings too."""

from __future__ import annotations

from typing import Any

from judge.referee import BotInfo, MatchSpec, play_match
from tests.judge.fakes import FakeChannel, Reply, Table, first_legal
from tests.judge.toygame import make_race


class LoggingTable(Table):
    """Bots that write a line to their standard error for every message they get; each
    seating starts fresh processes, so their logs start empty again."""

    def __init__(self, bots: int) -> None:
        super().__init__(*[first_legal] * bots)
        for channel in self.channels:
            channel.behaviour = self._logging(channel)

    @staticmethod
    def _logging(channel: FakeChannel) -> Any:
        def behaviour(message: dict[str, Any]) -> Reply | None:
            channel.log += f"{message['type']} {message.get('game', '-')}\n".encode()
            return first_legal(message)

        return behaviour

    def start(self, index: int) -> FakeChannel:
        channel = super().start(index)
        channel.log = b""
        return channel


def parts(log: str, marks: list[list[int]]) -> dict[int, str]:
    ends = [start for _, start in marks[1:]] + [len(log)]
    return {game: log[start:end] for (game, start), end in zip(marks, ends, strict=True)}


def test_each_games_part_of_the_log_holds_what_the_bot_wrote_at_its_end() -> None:
    table = LoggingTable(2)
    spec = MatchSpec("race", seed=7, games=3)
    outcome = play_match(
        spec, [BotInfo("a"), BotInfo("b")], table.start, make_game=make_race, clock=table.clock
    )
    for log, marks in zip(outcome.logs, outcome.log_games, strict=True):
        assert [game for game, _ in marks] == [0, 1, 2]
        cut = parts(log, marks)
        assert cut[0].startswith("hello")
        for game in range(3):
            assert f"game_over {game}\n" in cut[game]
        assert "match_over" in cut[2]
        assert "".join(cut.values()) == log
        assert outcome.to_json()["log_games"] == outcome.log_games


def test_a_duplicate_match_starts_a_part_at_each_seating() -> None:
    table = LoggingTable(2)
    spec = MatchSpec("race", seed=7, games=2, duplicate=True)
    outcome = play_match(
        spec, [BotInfo("a"), BotInfo("b")], table.start, make_game=make_race, clock=table.clock
    )
    for log, marks in zip(outcome.logs, outcome.log_games, strict=True):
        assert [game for game, _ in marks] == [0, 1, 2, 3]
        cut = parts(log, marks)
        assert cut[0].startswith("hello") and cut[2].startswith("hello")  # a fresh process
        assert log.count("hello") == 2
        for game in range(4):
            assert f"game_over {game}\n" in cut[game]
