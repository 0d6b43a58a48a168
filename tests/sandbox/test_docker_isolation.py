"""Nothing a bot plants in one seating reaches the next bot of its container (or of the
next container): attacks/plant.py reads every channel we know of, then plants a value
in each (PID 1's resource limits, nice, scheduling policy, affinity and I/O priority;
its own, which its children would inherit; files in every folder it may write; SysV IPC
and POSIX message queues; /dev/shm; a daemon on an abstract unix socket), and the next
seating must find none of it and start from exactly the same state. In every lifecycle
(a pooled container: two seatings of one container are what two matches of the pool
are; a reused one; fresh containers, started ahead or not), for a bot of every runtime
image (the probe is Python, started by a bot
of each language: attacks/runtimes.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sandbox.channel import Channel
from sandbox.docker_backend import DockerBackend, WarmChannel
from sandbox.limits import Limits
from sandbox.parallel import SeatStart
from sandbox.pool import PoolLimits
from sandbox.runtimes import RUNTIMES
from tests.sandbox.attacks import harness, runtimes

pytestmark = pytest.mark.docker

PLANT = harness.ATTACKS / "plant.py"
#: Compilers and JVMs start slowly on a busy machine: the clock is not what is tested.
REPORT_S = 120.0
REFUSED = {"PermissionError", "Operation not permitted"}
#: What a bot may write: its /tmp, and /dev/mqueue (a queue is a file there: none can be
#: made in a pooled container, and a fresh one has its own IPC namespace).
WRITABLE = {"/tmp", "/dev/mqueue"}


def two_seatings_pooled(folder: Path, name: str) -> list[dict[str, Any]]:
    """The reports of two seatings in one pooled container."""
    backend = DockerBackend(
        pipe_root=harness.PIPE_ROOT, client=harness.client(), pool_limits=PoolLimits()
    )
    container = backend.start_pooled(SeatStart(folder, harness.label(name)), harness.label(name))
    try:
        return [_seating(container.spawn) for _ in range(2)]
    finally:
        assert not container.broken  # the supervisor cleaned up after the planter
        container.close()
        assert container.wait_removed(60)


def two_seatings_fresh(folder: Path, name: str) -> list[dict[str, Any]]:
    """The reports of two seatings, each in its own container (the fresh lifecycle)."""
    backend = harness.pipe_backend()
    return [
        _seating(lambda: backend.start(folder, label=harness.label(name), limits=Limits()))
        for _ in range(2)
    ]


def _seating(start: Callable[[], Channel]) -> dict[str, Any]:
    channel = start()
    try:
        return harness.report(channel, REPORT_S)
    finally:
        channel.close()


def two_seatings_reused(folder: Path, name: str) -> list[dict[str, Any]]:
    """The reports of two seatings of one match in one reused container (``reuse``)."""
    backend = harness.pipe_backend()
    container = backend.start_reused(folder, label=harness.label(name), limits=Limits())
    try:
        return [_seating(container.spawn) for _ in range(2)]
    finally:
        assert not container.broken
        container.close()
        assert container.wait_removed(60)


def two_seatings_warm(folder: Path, name: str) -> list[dict[str, Any]]:
    """The reports of two seatings in containers started ahead (``warm``)."""
    backend = harness.pipe_backend()
    started: list[WarmChannel] = []

    def start() -> Channel:
        channel = backend.prestart(folder, label=harness.label(name), limits=Limits())
        started.append(channel)
        channel.go()
        return channel

    reports = [_seating(start) for _ in range(2)]
    assert all(channel.wait_removed(60) for channel in started)  # removed in the background
    return reports


LIFECYCLES = {
    "pool": two_seatings_pooled,
    "fresh": two_seatings_fresh,
    "reuse": two_seatings_reused,
    "warm": two_seatings_warm,
}


@pytest.mark.parametrize("lifecycle", sorted(LIFECYCLES))
@pytest.mark.parametrize("language", sorted(RUNTIMES))
def test_nothing_planted_in_one_seating_reaches_the_next(
    tmp_path: Path, language: str, lifecycle: str
) -> None:
    folder = runtimes.bot_folder(tmp_path, language, PLANT)
    first, second = LIFECYCLES[lifecycle](folder, f"plant-{language}-{lifecycle}")
    for report in (first, second):
        assert set(report["folders"]) <= WRITABLE, report["folders"]
        assert report["files"] == []  # no file outside them is writable either
        pid1 = report["planted"]["pid1"]
        assert set(pid1.values()) <= REFUSED, pid1  # another user's process
        state = report["state"]
        assert state["caps"] == ["0000000000000000"] * 4
        assert state["ids"] == ["65534\t65534\t65534\t65534"] * 2
    assert second["state"] == first["state"]  # limits, nice, policy, affinity, ioprio...
    found = second["found"]
    assert found["files"] == [] and found["tmp"] == [], found
    assert found["sysv"] == {"shm": [], "sem": [], "msg": []}, found
    assert found["mq"] == "No such file or directory", found
    assert found["socket"].startswith("refused"), found
    assert harness.not_the_zygote(found["processes"]) == [], found
    assert str(first["secret"]) not in repr(second)
    if lifecycle in ("pool", "reuse"):  # its IPC namespace lives on: nothing can be made
        made = first["planted"]["ipc"]  # semget: 0 semaphores a set (EINVAL), others ENOSPC
        assert set(made.values()) <= {"No space left on device", "Invalid argument"}, made


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
