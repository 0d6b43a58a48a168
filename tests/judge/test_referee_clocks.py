"""The referee's clocks: what a bot is charged for, and when a timeout is the host's."""

from __future__ import annotations

import pytest

from judge.referee import BotInfo, HostStalled, MatchSpec, TimeControl, play_match
from judge.stalls import StallWatch
from tests.judge.fakes import FakeClock, Reply, Table, action, first_legal, ready
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
