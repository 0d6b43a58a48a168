"""The viewer's frames: the engine's own views, step by step, for every game (no database)."""

from __future__ import annotations

import pytest

from judge.bots import house_policy
from judge.engine import JSONDict
from judge.games import GAMES, new_game
from judge.players import PolicyChannel
from judge.referee import BotInfo, MatchSpec, play_match
from tournaments.web.replays import ReplayError, frames, requested_frames

#: Every registered game at its demo's table size, with the check's (short) options.
TABLES = [
    (name, cls.demo_format.get("table_size", cls.min_players), dict(cls.check_options))
    for name, cls in GAMES.items()
]


def record(game: str, players: int, options: dict[str, int]) -> JSONDict:
    spec = MatchSpec(game=game, seed=21, players=players, options=options, duplicate=True)
    bots = [BotInfo(f"bot{i}") for i in range(players)]
    outcome = play_match(spec, bots, lambda i: PolicyChannel(house_policy(game, "random", i)))
    return outcome.record


@pytest.mark.parametrize(("game", "players", "options"), TABLES)
def test_a_seats_frames_are_what_the_engine_showed_that_seat(
    game: str, players: int, options: dict[str, int]
) -> None:
    match = record(game, players, options)
    played = match["games"][1]
    seat = players - 1
    shown = frames(match, 1, seat)
    engine = new_game(game, played["record"]["seed"], players, options=options)
    assert len(shown["steps"]) == len(played["record"]["actions"])
    for step, (who, action) in zip(shown["steps"], played["record"]["actions"], strict=True):
        assert step["view"] == engine.observation(seat)
        assert ("legal" in step) == (who == seat)
        if who == seat:
            assert step["legal"] == engine.legal_actions(seat) and action in step["legal"]
        engine.apply(who, action)
    assert shown["final"] == engine.observation(seat)
    assert shown["revealed"] == engine.revealed()
    assert shown["result"] == engine.result().to_json()


@pytest.mark.parametrize(("game", "players", "options"), TABLES)
def test_the_all_seats_view_holds_every_seats_private_cards(
    game: str, players: int, options: dict[str, int]
) -> None:
    match = record(game, players, options)
    shown = frames(match, 0, None)
    first = shown["steps"][0]
    assert "legal" in first
    keys = GAMES[game].private_keys
    if not keys:
        assert "private" not in first["view"]
        return
    engine = new_game(game, match["games"][0]["record"]["seed"], players, options=options)
    seen = [engine.observation(seat) for seat in range(players)]
    assert first["view"]["private"] == [{key: own[key] for key in keys} for own in seen]
    assert all(own[key] is not None for own in seen for key in keys)


def test_bad_requests_say_what_to_ask_for() -> None:
    match = record("oceans11", 2, {})
    with pytest.raises(ReplayError, match="choose 'all' or a seat from 0 to 1"):
        requested_frames(match, "0", "2")
    with pytest.raises(ReplayError, match="this match has games 0 to 1"):
        requested_frames(match, "x", "all")
    assert requested_frames(match, "1", "all")["perspective"] is None
