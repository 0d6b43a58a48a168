"""The referee's logic against scripted fake channels and a toy game (no processes)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from judge.channel import BotGone, BotLineTooLong
from judge.games import replay
from judge.referee import BotInfo, MatchSpec, TimeControl, play_match, rotations, schedule
from judge.rng import derive_seed
from tests.judge.fakes import Reply, Table, action, first_legal, ready, validate_message
from tests.judge.toygame import Race, make_race

TWO = [BotInfo("a", "h-a"), BotInfo("b", "h-b")]


def play(table: Table, games: int = 1, bots: list[BotInfo] = TWO, **spec: Any) -> Any:
    match = MatchSpec("race", seed=7, games=games, **spec)
    return play_match(match, bots, table.start, make_game=make_race, clock=table.clock)


def faulty_at_first_act(reply: Reply) -> Any:
    def behaviour(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return ready()
        return reply if message["type"] == "act" else None

    return behaviour


def test_a_clean_match_totals_each_bots_scores_over_its_games() -> None:
    table = Table(first_legal, first_legal)
    outcome = play(table, games=3)
    assert outcome.faults == []
    totals = [0, 0]
    for played in outcome.games:
        for seat, bot in enumerate(played["seating"]):
            totals[bot] += played["result"]["scores"][seat]
    assert outcome.scores == totals
    assert sorted(outcome.places) == sorted(1 + sum(t > mine for t in totals) for mine in totals)
    assert [g["deal"] for g in outcome.games] == [0, 1, 2]
    assert outcome.record["header"]["seeds"] == [derive_seed(7, g) for g in range(3)]


def test_every_message_the_referee_sends_fits_its_schema() -> None:
    table = Table(first_legal, first_legal, first_legal)
    play(table, games=2, bots=[BotInfo(n) for n in "abc"], duplicate=True)
    kinds = Counter(m["type"] for ch in table.channels for m in ch.sent)
    assert set(kinds) == {"hello", "act", "game_over", "match_over"}
    for channel in table.channels:
        for message in channel.sent:
            validate_message(message)


def test_the_record_replays_to_the_same_result() -> None:
    table = Table(first_legal, first_legal)
    outcome = play(table, games=2)
    for played in outcome.record["games"]:
        record = played["record"]
        game = Race(record["seed"], players=2, options=record["options"])
        for seat, chosen in record["actions"]:
            game.apply(seat, chosen)
        assert game.result().to_json() == played["result"]
        assert len(played["times"]) == len(record["actions"])


def test_the_hello_names_the_seat_game_and_time_control() -> None:
    table = Table(first_legal, first_legal)
    play(table, games=2, time=TimeControl(startup_s=3, move_s=0.5, bank_s=2))
    hello = table.channels[1].sent[0]
    assert hello["seat"] == 1 and hello["bot"] == 1 and hello["game"] == "race"
    assert hello["games"] == 2 and hello["players"] == 2
    assert hello["time"] == {"startup_s": 3, "move_s": 0.5, "bank_s": 2}
    assert table.channels[1].sent[-1]["type"] == "match_over"
    assert all(channel.closed for channel in table.channels)


FAULTS = [
    ("timeout", Reply(delay=60.0), ""),
    ("closed", Reply(error=BotGone("exited with status 1")), ""),
    ("line_too_long", Reply(error=BotLineTooLong("line over 1024 bytes", b"x" * 1024)), "xxx"),
    ("not_utf8", Reply(b"\xff\xfe{}"), "\\xff"),
    ("not_json", Reply(b"{action: 1"), "{action: 1"),
    ("bad_message", Reply(b'{"type":"move","action":"1"}'), "move"),
    ("bad_message", Reply(b'{"type":"action","action":1.5}'), "1.5"),
    ("bad_message", Reply(b'{"type":"action","action":true}'), "true"),
    ("bad_message", Reply(b'{"type":"action","action":"1","note":"x"}'), "note"),
    ("bad_message", Reply(b'["action","1"]'), "action"),
    ("illegal_action", Reply(b'{"type":"action","action":"3"}'), '"3"'),
    ("illegal_action", Reply(b'{"type":"action","action":5}'), "5"),
    ("channel_error", Reply(error=RuntimeError("pipe exploded")), ""),
]


@pytest.mark.parametrize(("kind", "reply", "text"), FAULTS)
def test_each_fault_retires_the_seat_and_the_match_completes(
    kind: str, reply: Reply, text: str
) -> None:
    table = Table(first_legal, faulty_at_first_act(reply))
    outcome = play(table, games=2)
    assert [(f.kind, f.bot, f.game, f.move, f.seat) for f in outcome.faults] == [(kind, 1, 0, 1, 1)]
    assert text in outcome.faults[0].text
    faulty = table.channels[1]
    assert faulty.closed and [m["type"] for m in faulty.sent] == ["hello", "act"]
    for played in outcome.record["games"]:
        actions = played["record"]["actions"]
        assert all(a == "1" for seat, a in actions if seat == 1)  # the fallback
        timed = [t for (s, _), t in zip(actions, played["times"], strict=True) if s == 1]
        assert timed[1:] == [None] * (len(timed) - 1)
        assert replay(played["record"]).result().to_json() == played["result"]


@pytest.fixture(autouse=True)
def _race_in_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge import games

    monkeypatch.setitem(games.GAMES, "race", Race)


def test_the_other_seat_keeps_playing_and_its_results_stand() -> None:
    table = Table(first_legal, faulty_at_first_act(Reply(b"garbage")))
    outcome = play(table, games=3)
    healthy = table.channels[0]
    acts = [m for m in healthy.sent if m["type"] == "act"]
    played = outcome.record["games"]
    assert len(acts) == sum(1 for g in played for s, _ in g["record"]["actions"] if s == 0)
    assert [m["type"] for m in healthy.sent].count("game_over") == 3
    assert healthy.sent[-1]["type"] == "match_over"


def test_a_bot_silent_at_start_up_is_retired_before_the_first_move() -> None:
    silent = Table(first_legal, lambda message: None)
    outcome = play(silent, time=TimeControl(startup_s=2.0))
    (fault,) = outcome.faults
    assert (fault.kind, fault.game, fault.move) == ("timeout", None, None)
    assert silent.clock.now >= 1002.0
    assert [m["type"] for m in silent.channels[1].sent] == ["hello"]


def test_a_bot_that_answers_hello_wrongly_is_retired() -> None:
    table = Table(lambda m: Reply(b'{"type":"action","action":0}'), first_legal)
    outcome = play(table)
    assert [(f.bot, f.kind) for f in outcome.faults] == [(0, "bad_message")]
    assert all(
        s == 1 or a == "1" for g in outcome.record["games"] for s, a in g["record"]["actions"]
    )


def slow_bot(delays: list[float]) -> Any:
    left = list(delays)

    def behaviour(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return ready()
        if message["type"] == "act":
            return action(0, left.pop(0) if left else 0.0)
        return None

    return behaviour


def bank_seen(channel: Any) -> list[float]:
    return [m["time"]["bank_s"] for m in channel.sent if m["type"] == "act"]


def test_a_move_within_the_limit_leaves_the_bank_untouched() -> None:
    table = Table(slow_bot([1.0, 1.0, 1.0]), first_legal)
    outcome = play(table, time=TimeControl(move_s=1.0, bank_s=2.0), options={"size": 12})
    assert outcome.faults == []
    assert bank_seen(table.channels[0])[:3] == [2.0, 2.0, 2.0]


def test_moves_over_the_limit_draw_on_the_bank_until_it_is_spent() -> None:
    table = Table(slow_bot([1.5, 1.25, 1.25, 1.1]), first_legal)
    outcome = play(table, time=TimeControl(move_s=1.0, bank_s=1.0), options={"size": 12})
    assert bank_seen(table.channels[0])[:4] == [1.0, 0.5, 0.25, 0.0]
    (fault,) = outcome.faults
    assert (fault.kind, fault.bot, fault.move) == ("timeout", 0, 6)


def test_an_answer_exactly_at_limit_plus_bank_is_in_time() -> None:
    table = Table(slow_bot([3.0, 1.0]), first_legal)
    outcome = play(table, time=TimeControl(move_s=1.0, bank_s=2.0), options={"size": 12})
    assert outcome.faults == []
    assert bank_seen(table.channels[0])[:2] == [2.0, 0.0]


def test_a_line_that_arrives_after_the_deadline_is_a_timeout() -> None:
    late = Reply(b'{"type":"action","action":0}', delay=3.5, late=True)
    table = Table(faulty_at_first_act(late), first_legal)
    outcome = play(table, time=TimeControl(move_s=1.0, bank_s=2.0))
    assert [(f.kind, f.move) for f in outcome.faults] == [("timeout", 0)]
    assert "past the move limit and bank" in outcome.faults[0].reason


def test_the_bank_lasts_the_whole_match_not_one_game() -> None:
    table = Table(slow_bot([1.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5]), first_legal)
    outcome = play(table, games=2, time=TimeControl(move_s=1.0, bank_s=0.75))
    assert [f.kind for f in outcome.faults] == ["timeout"]
    assert outcome.faults[0].game == 1


def test_duplicate_plays_each_deal_with_the_bots_swapped() -> None:
    table = Table(first_legal, first_legal)
    outcome = play(table, games=2, duplicate=True)
    assert [(g["deal"], g["seating"]) for g in outcome.games] == [
        (0, [0, 1]),
        (1, [0, 1]),
        (0, [1, 0]),
        (1, [1, 0]),
    ]
    seeds = [g["record"]["seed"] for g in outcome.record["games"]]
    assert seeds[0] == seeds[2] != seeds[1] == seeds[3]
    # identical bots on identical deals: each bot wins exactly the games its seat wins
    assert outcome.scores[0] == outcome.scores[1]


def test_each_duplicate_seating_is_played_by_fresh_processes() -> None:
    table = Table(first_legal, first_legal)
    outcome = play(table, games=2, duplicate=True)
    assert [channel.starts for channel in table.channels] == [2, 2]
    for channel in table.channels:
        kinds = [m["type"] for m in channel.sent]
        assert kinds.count("hello") == kinds.count("match_over") == 2
        hellos = [m for m in channel.sent if m["type"] == "hello"]
        assert [m["games"] for m in hellos] == [2, 2]
    assert outcome.logs == ["fake logfake log", "fake logfake log"]


def test_a_bot_retired_in_one_seating_is_not_started_again() -> None:
    table = Table(faulty_at_first_act(Reply(b"not json")), first_legal)
    outcome = play(table, games=1, duplicate=True)
    assert [f.kind for f in outcome.faults] == ["not_json"]
    assert [channel.starts for channel in table.channels] == [1, 2]


def test_a_bot_sees_its_own_seat_after_rotation() -> None:
    table = Table(first_legal, first_legal)
    play(table, duplicate=True)
    seats = {(m["game"], m["seat"]) for m in table.channels[0].sent if m["type"] == "act"}
    assert seats == {(0, 0), (1, 1)}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_small_tables_rotate_through_every_seat(players: int) -> None:
    seatings = rotations(players)
    assert len(seatings) == players
    for seat in range(players):
        assert sorted(row[seat] for row in seatings) == list(range(players))
    assert seatings[1] == [(s + 1) % players for s in range(players)]


@pytest.mark.parametrize("players", [5, 6, 7, 8])
def test_large_tables_balance_seats_and_neighbours(players: int) -> None:
    seatings = rotations(players)
    assert len(seatings) == (players if players % 2 == 0 else 2 * players)
    per_seat = len(seatings) // players
    for seat in range(players):
        assert Counter(row[seat] for row in seatings) == dict.fromkeys(range(players), per_seat)
    follows = Counter((row[s], row[s + 1]) for row in seatings for s in range(players - 1))
    assert len(set(follows.values())) == 1 and len(follows) == players * (players - 1)


def test_a_four_seat_duplicate_match_plays_every_rotation_of_each_deal() -> None:
    table = Table(*[first_legal] * 4)
    outcome = play(table, games=2, bots=[BotInfo(n) for n in "abcd"], duplicate=True)
    assert (
        len(outcome.games) == 8
        and len(schedule(MatchSpec("race", 1, games=2, duplicate=True), 4)) == 8
    )
    assert outcome.record["header"]["duplicate"] is True


def test_bots_must_fill_the_table() -> None:
    with pytest.raises(ValueError, match="3 players need 3 bots, not 2"):
        play(Table(first_legal, first_legal), players=3)


def test_a_starter_that_fails_closes_the_bots_already_started() -> None:
    table = Table(first_legal, first_legal)

    def start(index: int) -> Any:
        if index == 1:
            raise OSError("no Docker engine")
        return table.start(index)

    with pytest.raises(OSError, match="no Docker engine"):
        play_match(MatchSpec("race", 1), TWO, start, make_game=make_race, clock=table.clock)
    assert table.channels[0].closed


def test_the_outcome_keeps_logs_apart_from_the_record() -> None:
    outcome = play(Table(first_legal, first_legal))
    assert outcome.logs == ["fake log", "fake log"]
    assert "fake log" not in str(outcome.record)
    assert set(outcome.to_json()) >= {"game", "variant", "seed", "bots", "scores", "places"}
