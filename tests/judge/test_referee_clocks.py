"""The referee's clocks: what a bot is charged for, and when a timeout is the host's."""

from __future__ import annotations

from typing import Any

import pytest

from judge.referee import BotInfo, HostStalled, MatchSpec, TimeControl, play_match
from judge.stalls import StallWatch
from tests.judge.fakes import (
    Behaviour,
    CpuTable,
    FakeChannel,
    FakeClock,
    Reply,
    Table,
    action,
    first_legal,
    ready,
)
from tests.judge.toygame import make_race

TWO = [BotInfo("a", "h-a"), BotInfo("b", "h-b")]
CLOCKS = TimeControl(startup_s=2.0, move_s=1.0, bank_s=1.0)


def slow_first_move(message: dict[str, object]) -> Reply | None:
    """Answers its first move after 30 s, later ones at once."""
    if message["type"] == "hello":
        return ready()
    if message["type"] == "act":
        return action(0, delay=30.0 if message["move"] in (0, 1) else 0.0)
    return None


def test_a_timeout_across_a_stall_of_the_host_voids_the_match_and_closes_the_bots() -> None:
    table = Table(slow_first_move, first_legal)
    windows: list[tuple[float, float]] = []

    def host(start: float, end: float) -> str:
        windows.append((start, end))
        return "the worker was stalled for 29.0 s during it"

    spec = MatchSpec("race", seed=3, time=CLOCKS)
    with pytest.raises(HostStalled, match=r"the worker was stalled for 29\.0 s"):
        play_match(spec, TWO, table.start, make_game=make_race, clock=table.clock, host=host)
    assert all(channel.closed for channel in table.channels)
    [(start, end)] = windows
    assert end - start >= CLOCKS.move_s + CLOCKS.bank_s  # the move's window, asked about


def test_a_timeout_the_host_cannot_explain_is_the_bots_fault() -> None:
    table = Table(slow_first_move, first_legal)
    spec = MatchSpec("race", seed=3, time=CLOCKS)
    outcome = play_match(
        spec, TWO, table.start, make_game=make_race, clock=table.clock, host=lambda s, e: ""
    )
    [fault] = outcome.faults
    assert (fault.bot, fault.kind) == (0, "timeout")


def test_a_start_up_timeout_across_a_stall_voids_the_match() -> None:
    def late_ready(message: dict[str, object]) -> Reply | None:
        return Reply(b'{"type":"ready"}', delay=5.0) if message["type"] == "hello" else None

    table = Table(late_ready, first_legal)
    with pytest.raises(HostStalled):
        play_match(
            MatchSpec("race", seed=3, time=CLOCKS),
            TWO,
            table.start,
            make_game=make_race,
            clock=table.clock,
            host=lambda s, e: "stalled",
        )


def test_the_watchdog_tells_a_late_tick_as_a_stall_over_the_windows_it_overlaps() -> None:
    clock = FakeClock(now=100.0)
    watch = StallWatch(tick_s=0.1, stall_s=1.0, clock=clock)
    for _ in range(5):
        clock.now += 0.1
        watch.tick()
    assert watch.stalls() == []
    clock.now += 15.0  # stopped for 15 s: the next tick comes late
    watch.tick()
    [(began, ended)] = watch.stalls()
    assert ended - began == pytest.approx(15.0)
    assert "stalled for 15.0 s" in watch.stalled(began - 5, began + 1)
    assert watch.stalled(began - 5, began - 1) == ""  # a window before the stall
    assert watch.stalled(ended + 0.5, ended + 2) == ""  # and one after it


def test_the_watchdog_tells_a_stall_still_going_on_before_its_own_tick_comes() -> None:
    clock = FakeClock(now=100.0)
    watch = StallWatch(tick_s=0.1, stall_s=1.0, clock=clock)
    watch.tick()
    clock.now += 0.5
    assert watch.stalled(99.0, clock.now) == ""  # late, but not a stall yet
    clock.now += 14.5  # the referee's thread woke first after a SIGCONT
    assert "stalled for 15.0 s" in watch.stalled(99.0, clock.now)


def test_the_watchdog_thread_ticks_and_stops() -> None:
    watch = StallWatch(tick_s=0.01, stall_s=60.0).start()
    try:
        assert watch.stalled(0.0, 1e12) == ""
    finally:
        watch.stop()
    assert watch._thread is not None and not watch._thread.is_alive()


# The CPU clock (judge.bot_clock): channels that count their bot's CPU seconds.


def moves(delay: float, cpu: float, first_only: bool = False) -> Behaviour:
    """A bot whose moves take ``delay`` wall seconds and ``cpu`` CPU seconds (only its
    first move so, with ``first_only``; the others at once)."""

    def behaviour(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return ready()
        if message["type"] == "act":
            slow = not first_only or not getattr(behaviour, "asked", False)
            behaviour.asked = True  # type: ignore[attr-defined]
            if slow:
                return Reply(b'{"type":"action","action":0}', delay=delay, cpu=cpu)
            return action(0)
        return None

    return behaviour


def banks(channel: FakeChannel) -> list[float]:
    return [m["time"]["bank_s"] for m in channel.sent if m["type"] == "act"]


def play_cpu(table: CpuTable, host: Any = None) -> Any:
    spec = MatchSpec("race", seed=3, time=CLOCKS)
    return play_match(spec, TWO, table.start, make_game=make_race, clock=table.clock, host=host)


def test_a_loaded_host_stretches_a_bots_wall_time_but_charges_only_its_cpu() -> None:
    # 2.5 s of wall per move (a starved host) but 0.3 s of CPU: within the 1 s move limit.
    table = CpuTable(moves(delay=2.5, cpu=0.3), first_legal)
    outcome = play_cpu(table)
    assert outcome.faults == []
    assert set(banks(table.channels[0])) == {CLOCKS.bank_s}  # nothing drawn from the bank
    times = [t for g in outcome.record["games"] for t in g["times"]]
    assert max(times) == pytest.approx(2.5)  # the record keeps the wall time


def test_a_bot_over_its_cpu_budget_is_faulted_and_the_host_is_not_asked() -> None:
    asked: list[tuple[float, float]] = []

    def host(start: float, end: float) -> str:
        asked.append((start, end))
        return "stalled"

    # 2.6 s of CPU at one core's rate: past the 1 s move limit and the 1 s bank.
    table = CpuTable(moves(delay=2.6, cpu=2.6, first_only=True), first_legal)
    outcome = play_cpu(table, host)
    [fault] = outcome.faults
    assert (fault.bot, fault.kind) == (0, "timeout")
    assert "s of CPU without answering, past the move limit and bank" in fault.reason
    assert asked == []  # the bot's own CPU ran out: no stall of the host excuses that
    used = float(fault.reason.split("used ")[1].split(" s")[0])
    # Looked at again within half of what was left: stopped soon after the 2 s budget.
    assert 2.0 < used <= 2.0 + 0.5 + 1e-9


def test_the_excess_of_a_moves_cpu_is_drawn_from_the_bank() -> None:
    table = CpuTable(moves(delay=1.6, cpu=1.6, first_only=True), first_legal)
    outcome = play_cpu(table)
    assert outcome.faults == []
    assert banks(table.channels[0])[1:2] == [pytest.approx(CLOCKS.bank_s - 0.6)]


def test_a_bot_that_sleeps_is_stopped_by_the_wall_clock_three_times_its_clock() -> None:
    # No CPU at all, but 10 s of wall: past 3 * (1 s + 1 s of bank) = 6 s.
    table = CpuTable(moves(delay=10.0, cpu=0.0, first_only=True), first_legal)
    outcome = play_cpu(table)
    [fault] = outcome.faults
    assert fault.kind == "timeout"
    assert "none within 6.000 s of wall clock" in fault.reason
    assert table.clock.now - 1000.0 < 10.0  # stopped at the wall cap, not at the answer


def test_a_wall_timeout_across_a_stall_of_the_host_voids_the_match() -> None:
    table = CpuTable(moves(delay=10.0, cpu=0.0, first_only=True), first_legal)
    with pytest.raises(HostStalled):
        play_cpu(table, host=lambda start, end: "the worker was stalled")


def test_slow_moves_on_the_wall_draw_the_wall_bank_until_a_bot_times_out() -> None:
    # Each move: 4 s of wall (1 s over 3 * 1 s), no CPU: the 3 s wall bank lasts 3 moves.
    table = CpuTable(moves(delay=4.0, cpu=0.0), first_legal)
    outcome = play_cpu(table)
    [fault] = outcome.faults
    # Asked 4 times: 3 answers drew 1 s each, the 4th had 3 s of wall left, no more.
    assert "none within 3.000 s of wall clock" in fault.reason
    assert banks(table.channels[0]) == [CLOCKS.bank_s] * 4  # its CPU bank was never drawn


def test_a_bot_slow_to_start_on_its_cpu_times_out_at_start_up() -> None:
    def heavy_start(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return Reply(b'{"type":"ready"}', delay=3.0, cpu=3.0)
        return None

    table = CpuTable(heavy_start, first_legal)
    [fault] = play_cpu(table).faults
    assert (fault.bot, fault.game, fault.kind) == (0, None, "timeout")
    assert "past the start-up limit" in fault.reason


def test_a_start_slowed_by_the_host_but_not_by_the_bot_is_on_time() -> None:
    def starved_start(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return Reply(b'{"type":"ready"}', delay=5.0, cpu=0.5)  # 5 s < 3 * 2 s
        return first_legal(message)

    table = CpuTable(starved_start, first_legal)
    assert play_cpu(table).faults == []


def test_wall_time_over_a_stall_of_the_worker_is_not_drawn_from_the_bots_banks() -> None:
    # No CPU; 5 s of wall on its first move (2 s over 3 * 1 s) across a stall, then 5.5 s
    # (2.5 s over) with none: had the first excess been drawn, 1 s of the 3 s wall bank
    # would be left, and the second move would time out at 4 s.
    stalled_until = 1000.0 + 5.0

    def host(start: float, end: float) -> str:
        return "stalled" if start < stalled_until else ""

    def slow() -> Behaviour:
        delays = iter([5.0, 5.5])

        def behaviour(message: dict[str, Any]) -> Reply | None:
            if message["type"] == "act":
                return Reply(b'{"type":"action","action":0}', delay=next(delays, 0.0))
            return first_legal(message)

        return behaviour

    assert play_cpu(CpuTable(slow(), first_legal), host).faults == []
    [fault] = play_cpu(CpuTable(slow(), first_legal)).faults  # no stall: drawn as before
    assert "none within 4.000 s of wall clock" in fault.reason
    # On the wall clock alone the bank is not drawn either.
    wall_table = Table(moves(delay=1.5, cpu=0.0, first_only=True), first_legal)
    spec = MatchSpec("race", seed=3, time=CLOCKS)
    outcome = play_match(
        spec, TWO, wall_table.start, make_game=make_race, clock=wall_table.clock, host=host
    )
    assert outcome.faults == []
    assert set(banks(wall_table.channels[0])) == {CLOCKS.bank_s}


def test_wall_time_with_no_stall_is_drawn_as_before() -> None:
    table = Table(moves(delay=1.5, cpu=0.0, first_only=True), first_legal)
    spec = MatchSpec("race", seed=3, time=CLOCKS)
    play_match(spec, TWO, table.start, make_game=make_race, clock=table.clock, host=lambda s, e: "")
    assert banks(table.channels[0])[1:2] == [pytest.approx(CLOCKS.bank_s - 0.5)]
