"""The background removals: bounded (past the backlog the caller removes it itself), a
failing job is logged and counted as done, and waiting covers exactly the jobs asked."""

from __future__ import annotations

import threading

import pytest

from sandbox.removal import Removals, wait_all


def test_a_full_backlog_makes_the_caller_do_the_removal() -> None:
    removals = Removals(workers=1, backlog=1)
    release = threading.Event()
    where: list[str] = []

    def blocked() -> None:
        release.wait(60)

    def recorded() -> None:
        where.append(threading.current_thread().name)

    first = removals.submit(blocked)  # runs in the pool's one thread
    second = removals.submit(blocked)  # waits in the backlog
    third = removals.submit(recorded)  # no room: done here, at once
    assert third.done() and where == [threading.current_thread().name]
    assert not wait_all([first, second], 0.05)
    release.set()
    assert wait_all([first, second], 60)


def test_a_failed_removal_is_logged_and_done(caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> None:
        raise RuntimeError("the engine said no")

    assert wait_all([Removals().submit(broken)], 60)
    assert "removing a bot container failed" in caplog.text
