"""Reused containers (sandbox.reuse, JUDGE_SANDBOX_LIFECYCLE=reuse): the attack suite's
bots in a container that serves two seatings. Each attack is refused in the first
seating as in a container of its own; the supervisor survives it; the second seating
gets a fresh process in a clean container (the attack, run again, finds everything as
the first time: an empty /tmp, free processes, its own PID 1). The supervisor's own
attack: signals, ptrace, its memory and descriptors, the control FIFOs, SysV IPC,
message queues, IP sockets and the cgroup's counters are all refused."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.channel import Channel, ChannelClosed
from sandbox.limits import Limits
from sandbox.parallel import SeatStart
from tests.sandbox.attacks import harness, verdicts

pytestmark = pytest.mark.docker

LIMITS = Limits(line_bytes=64 << 10, stderr_bytes=16 << 10, send_timeout_s=0.5)
PROBE_LIMITS = {
    "fill_tmp": Limits(tmp_mb=12, file_size_mb=4),
    "exhaust_fds": Limits(open_files=64),
    "fork_bomb": Limits(pids=32),
}
REFUSED = {"PermissionError", "OSError", "FileNotFoundError"}


def read_proc(found: dict[str, Any], limits: Limits, env: dict[str, str]) -> None:
    """PID 1 is the supervisor (python3), the zygote a Python bot's parent's (zygote):
    the bot sees them, cannot touch them."""
    assert set(found["processes"].values()) <= {"python3", "zygote"}, found["processes"]
    assert set(found["touched"].values()) <= REFUSED, found["touched"]


def signals(found: dict[str, Any], limits: Limits, env: dict[str, str]) -> None:
    """Its parent is PID 1, or the zygote it was forked from (``sandbox.supervisor``)."""
    assert found["ppid"] == 1 or found["parent"] == "zygote", found
    assert found["host"] == "ProcessLookupError"
    assert found["pid1_alive"] is True


def supervisor(found: dict[str, Any], limits: Limits, env: dict[str, str]) -> None:
    sent = {key: found.pop(key) for key in list(found) if key.startswith("kill_")}
    assert set(sent.values()) <= {"done"} | REFUSED, sent  # sent, and dropped by the kernel
    assert found.pop("pid1_state") in {"S", "R"}  # not stopped, not gone
    assert found.pop("socket_AF_UNIX") == "done"
    assert found.pop("cgroup") == []
    assert found.pop("tmp") == []
    assert set(found.values()) <= REFUSED, found


CHECKS = {
    **verdicts.CHECKS,
    "read_proc": read_proc,
    "signals": signals,
    "supervisor": supervisor,
}
#: network: IP sockets cannot be made here at all (the supervisor attack checks it), so
#: its interface listing fails before it reports.
ATTACKS = sorted(set(CHECKS) - {"network"})


@pytest.fixture
def host_pid() -> Iterator[int]:
    with harness.unharmed() as pid:
        yield pid


def one_seating(
    seat: Any, name: str, limits: Limits, env: dict[str, str], seating_env: bool = False
) -> int:
    """A seating of the attack bot: its report checked; the bot's PID. ``seating_env``:
    the probe's environment comes with the seating (a pooled container's way)."""
    channel: Channel = seat.spawn(env if seating_env else None)
    try:
        found = harness.report(channel, timeout=60)
        CHECKS[name](dict(found), limits, env)
    finally:
        channel.close()
    return int(found.get("pid", 0))


@pytest.mark.parametrize("pooled", [False, True], ids=["reused", "pooled"])
@pytest.mark.parametrize("name", ATTACKS)
def test_an_attack_is_refused_in_each_seating_of_a_reused_container(
    tmp_path: Path, host_pid: int, name: str, pooled: bool
) -> None:
    """Reused: one match's container (its environment given at creation); pooled: a
    container of the pool (``start_pooled``: the environment comes with each seating,
    the wall clock is the seating's)."""
    env = harness.probe_env(tmp_path, host_pid, "victim-" + os.urandom(8).hex())
    limits = PROBE_LIMITS.get(name, LIMITS)
    code = harness.bot_folder(tmp_path, name)
    label = harness.label(f"reuse-{name}")
    backend = harness.pipe_backend()
    if pooled:
        seat = backend.start_pooled(SeatStart(code, label, limits), label)
    else:
        seat = backend.start_reused(code, label=label, limits=limits, env=env)
    try:
        (container,) = harness.containers_labelled(label)
        for _ in range(2):
            one_seating(seat, name, limits, env, seating_env=pooled)
            assert not seat.broken, "the supervisor must survive the attack and clean up"
        assert harness.containers_labelled(label) == [container]  # the same container
    finally:
        seat.close()
    assert seat.wait_removed(60)
    assert harness.containers_labelled(label) == []


def test_a_memory_bomb_is_killed_and_the_next_seating_starts(tmp_path: Path) -> None:
    code = harness.bot_folder(tmp_path, "memory_bomb")
    label = harness.label("reuse-memory")
    seat = harness.pipe_backend().start_reused(code, label=label, limits=Limits(memory_mb=128))
    try:
        for _ in range(2):
            channel = seat.spawn()
            with pytest.raises(ChannelClosed):  # killed at the cap: its output ends
                channel.recv(time.monotonic() + 60)
            lines = channel.stderr().decode().splitlines()
            assert "REPORT never stopped" not in lines
            assert lines and int(lines[-1].split()[1]) <= 128
            channel.close()
            assert not seat.broken
    finally:
        seat.close()
    assert seat.wait_removed(60)


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
