"""The referee's ``stop`` hook: a cancelled match ends between moves, its bots closed."""

from __future__ import annotations

import pytest

from judge.referee import BotInfo, MatchSpec, MatchStopped, play_match
from tests.judge.fakes import Table, first_legal
from tests.judge.toygame import make_race

TWO = [BotInfo("a", "h-a"), BotInfo("b", "h-b")]


def acts(table: Table) -> int:
    return sum(m["type"] == "act" for channel in table.channels for m in channel.sent)


def test_a_stop_after_some_moves_ends_the_match_with_no_outcome_and_closes_the_bots() -> None:
    table = Table(first_legal, first_legal)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 4  # asked before the block, then before each move: 3 moves

    spec = MatchSpec("race", seed=7, games=5, duplicate=True)
    with pytest.raises(MatchStopped):
        play_match(spec, TWO, table.start, make_game=make_race, clock=table.clock, stop=stop)
    assert acts(table) == 3
    assert all(channel.closed for channel in table.channels)
    assert not any(m["type"] == "match_over" for c in table.channels for m in c.sent)


def test_a_stop_that_never_fires_changes_nothing() -> None:
    spec = MatchSpec("race", seed=7, games=3, duplicate=True)
    plain, watched = Table(first_legal, first_legal), Table(first_legal, first_legal)
    first = play_match(spec, TWO, plain.start, make_game=make_race, clock=plain.clock)
    second = play_match(
        spec, TWO, watched.start, make_game=make_race, clock=watched.clock, stop=lambda: False
    )
    assert first.record == second.record
    assert acts(plain) == acts(watched) > 0


def test_a_stop_before_the_first_block_starts_no_bot() -> None:
    table = Table(first_legal, first_legal)
    with pytest.raises(MatchStopped):
        play_match(
            MatchSpec("race", seed=1),
            TWO,
            table.start,
            make_game=make_race,
            clock=table.clock,
            stop=lambda: True,
        )
    assert [channel.starts for channel in table.channels] == [0, 0]
