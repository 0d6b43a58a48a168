"""The attack suite, at the channel: each hostile bot in a real container, with a check
that the sandbox refused, that the worker and the host are unharmed, and that nothing is
left behind. (tests/sandbox/test_docker_referee.py plays the same bots through the
referee.)"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.channel import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits
from tests.sandbox.attacks import harness, verdicts

pytestmark = pytest.mark.docker

LIMITS = Limits(line_bytes=64 << 10, stderr_bytes=16 << 10, send_timeout_s=0.5)


OPEN: list[Channel] = []


@pytest.fixture(autouse=True)
def close_every_seat() -> Iterator[None]:
    """Even when a check fails, every bot of the test goes (close is idempotent)."""
    yield
    while OPEN:
        OPEN.pop().close()


class Seat:
    """One attack bot running in the sandbox, checked and removed at the end."""

    def __init__(
        self,
        tmp_path: Path,
        attack: str,
        limits: Limits = LIMITS,
        env: dict[str, str] | None = None,
        extra: dict[str, str] | None = None,
    ) -> None:
        self.label = harness.label(attack)
        code = harness.bot_folder(tmp_path, attack, extra)
        backend = harness.pipe_backend()
        self.channel: Channel = backend.start(code, label=self.label, limits=limits, env=env)
        OPEN.append(self.channel)

    def close_quickly(self) -> None:
        started = time.monotonic()
        self.channel.close()
        assert time.monotonic() - started < 30, "closing a hostile bot must not hang"
        assert harness.containers_labelled(self.label) == []


@pytest.fixture
def host_pid() -> Iterator[int]:
    """A process of the host for the bots to aim at; the worker and it must survive."""
    with harness.unharmed() as pid:
        yield pid


attack = Seat


def test_a_fork_bomb_is_stopped_by_the_process_cap(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "fork_bomb")
    verdicts.fork_bomb(harness.report(seat.channel), LIMITS, {})
    with pytest.raises(ChannelTimeout):
        seat.channel.recv(time.monotonic() + 0.2)
    seat.close_quickly()


def test_a_memory_bomb_is_killed_at_the_memory_cap(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "memory_bomb", limits=Limits(memory_mb=128))
    with pytest.raises(ChannelClosed):
        seat.channel.recv(time.monotonic() + 20)
    lines = seat.channel.stderr().decode().splitlines()
    assert "REPORT never stopped" not in lines
    assert lines and int(lines[-1].split()[1]) <= 128
    seat.close_quickly()


def test_spinning_threads_get_one_cpu_and_the_worker_stays_responsive(
    tmp_path: Path, host_pid: int
) -> None:
    seat = attack(tmp_path, "cpu_spin", limits=Limits(cpus=1.0))
    assert seat.channel.recv(time.monotonic() + 10) == b"spinning"
    container = harness.client().containers.get(harness.containers_labelled(seat.label)[0])

    def cpu_ns() -> int:
        stats = container.stats(stream=False, one_shot=True)
        return int(stats["cpu_stats"]["cpu_usage"]["total_usage"])

    before, started = cpu_ns(), time.monotonic()
    echo = harness.pipe_backend().start(
        harness.source_folder(tmp_path, "echo", harness.ECHO),
        label=harness.label("echo"),
        limits=LIMITS,
    )
    echo.send(b"ping")
    assert echo.recv(time.monotonic() + 10) == b"ping"
    echo.close()
    time.sleep(max(0.0, 1.5 - (time.monotonic() - started)))
    used = (cpu_ns() - before) / 1e9 / (time.monotonic() - started)
    assert used < 1.3, f"the bot used {used:.2f} CPUs"
    seat.channel.send(b"still there?")
    assert seat.channel.recv(time.monotonic() + 10) == b"still there?"
    seat.close_quickly()


def test_a_bot_that_sleeps_forever_times_out(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "sleep_forever")
    seat.channel.send(b'{"type": "hello"}')
    started = time.monotonic()
    with pytest.raises(ChannelTimeout):
        seat.channel.recv(started + 0.5)
    assert time.monotonic() - started < 10  # a loaded machine may wake us late
    seat.close_quickly()


def test_a_bot_that_never_reads_makes_send_time_out(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "never_reads")
    started = time.monotonic()
    with pytest.raises(ChannelTimeout):
        for _ in range(1000):
            seat.channel.send(b"z" * 4096)
    assert time.monotonic() - started < 30
    seat.close_quickly()


def test_a_stdout_flood_without_newlines_is_refused(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "stdout_flood")
    with pytest.raises(LineTooLong) as refused:
        seat.channel.recv(time.monotonic() + 10)
    assert refused.value.head.startswith(b"xxxx")
    seat.close_quickly()


def test_an_enormous_line_is_refused_and_the_next_one_read(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "huge_line")
    with pytest.raises(LineTooLong):
        seat.channel.recv(time.monotonic() + 10)
    assert seat.channel.recv(time.monotonic() + 10) == b"after"
    seat.close_quickly()


def test_a_stderr_flood_is_capped_and_the_bot_still_answers(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "stderr_flood")
    for number in range(20):
        seat.channel.send(b"%d" % number)
        assert seat.channel.recv(time.monotonic() + 10) == b"%d" % number
    log = seat.channel.stderr()
    assert b"bytes dropped" in log
    assert len(log) < LIMITS.stderr_bytes + 100
    seat.close_quickly()
    assert seat.channel.stderr() == log or len(seat.channel.stderr()) < LIMITS.stderr_bytes + 100


def test_invalid_utf8_comes_through_as_bytes(tmp_path: Path, host_pid: int) -> None:
    seat = attack(tmp_path, "invalid_utf8")
    seat.channel.send(b'{"type": "hello"}')
    assert seat.channel.recv(time.monotonic() + 10) == b'\xff\xfe{"type": "ready"}\xc0'
    seat.close_quickly()


PROBE_LIMITS = {
    "fill_tmp": Limits(tmp_mb=12, file_size_mb=4),
    "exhaust_fds": Limits(open_files=64),
}


@pytest.mark.parametrize(
    "name",
    [
        "network",
        "read_host",
        "write_outside_tmp",
        "fill_tmp",
        "exhaust_fds",
        "read_proc",
        "signals",
        "zombies",
        "privilege",
        "io_uring",
    ],
)
def test_a_probing_attack_finds_every_door_shut(tmp_path: Path, host_pid: int, name: str) -> None:
    """Network, host files and other bots' code, writes outside /tmp, /tmp size, file
    descriptors, /proc, signals, orphans, privilege escalation, io_uring."""
    victim_secret = "victim-" + os.urandom(8).hex()
    victim = attack(tmp_path, "sleep_forever", extra={"secret.txt": victim_secret})
    env = harness.probe_env(tmp_path, host_pid, victim_secret)
    limits = PROBE_LIMITS.get(name, LIMITS)
    seat = attack(tmp_path, name, limits=limits, env=env)
    verdicts.CHECKS[name](harness.report(seat.channel, timeout=60), limits, env)
    if name == "signals":  # its TERM to PID 1 came back to the bot itself
        with pytest.raises(ChannelClosed):
            seat.channel.recv(time.monotonic() + 10)
    seat.close_quickly()
    victim.close_quickly()


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
