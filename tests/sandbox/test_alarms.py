"""One thread for every seating's wall clock (sandbox.alarms): alarms ring in order of
their times, a cancelled one never rings, and cancelled ones do not pile up."""

from __future__ import annotations

import threading

import pytest

from sandbox import alarms
from sandbox.alarms import Alarms


def test_alarms_ring_in_order_and_a_cancelled_one_never_rings() -> None:
    rung: list[str] = []
    done = threading.Event()
    clock = Alarms()
    clock.set(0.2, lambda: (rung.append("last"), done.set()))
    clock.set(0.05, lambda: rung.append("first"))
    clock.set(0.1, lambda: rung.append("cancelled")).cancel()
    clock.set(0.15, lambda: 1 / 0)  # logged; the thread goes on
    assert done.wait(10)
    assert rung == ["first", "last"]
    assert clock.waiting() == 0


def test_threads_are_not_started_per_alarm() -> None:
    clock = Alarms()
    before = threading.active_count()
    for _ in range(50):
        clock.set(3600, lambda: None).cancel()
    assert threading.active_count() <= before + 1
    assert clock.waiting() == 0


def test_cancelled_alarms_are_dropped_once_they_are_most_of_the_queue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(alarms, "COMPACT_AT", 10)
    clock = Alarms()
    kept = clock.set(3600, lambda: None)
    for _ in range(30):
        clock.set(3600, lambda: None).cancel()
    assert len(clock._queue) <= 11
    assert clock.waiting() == 1
    kept.cancel()


def test_a_job_that_blocks_holds_up_no_other_alarm() -> None:
    release, later = threading.Event(), threading.Event()
    clock = Alarms()
    clock.set(0.01, lambda: release.wait(30))  # a kill waiting on a slow engine
    clock.set(0.05, later.set)
    try:
        assert later.wait(10)
    finally:
        release.set()
