"""The attack suite, at the channel: each hostile bot in a real container, with a check
that the sandbox refused, that the worker and the host are unharmed, and that nothing is
left behind. (tests/sandbox/test_docker_referee.py plays the same bots through the
referee.)"""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.channel import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

LIMITS = Limits(line_bytes=64 << 10, stderr_bytes=16 << 10, send_timeout_s=0.5)


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

    def close_quickly(self) -> None:
        started = time.monotonic()
        self.channel.close()
        assert time.monotonic() - started < 5, "closing a hostile bot must not hang"
        assert harness.containers_labelled(self.label) == []


@pytest.fixture
def worker_unharmed() -> Iterator[None]:
    """The worker keeps its memory and can still start processes; a host process lives."""
    sentinel = subprocess.Popen(["sleep", "120"])
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    os.environ["HOST_PID"] = str(sentinel.pid)
    try:
        yield
        assert subprocess.run(["true"], check=False).returncode == 0
        assert sentinel.poll() is None, "a process of the host was killed"
        grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
        assert grown_kb < 64 << 10, f"the worker grew by {grown_kb} kB"
    finally:
        sentinel.kill()
        sentinel.wait()
        del os.environ["HOST_PID"]


attack = Seat


def test_a_fork_bomb_is_stopped_by_the_process_cap(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "fork_bomb")
    found = harness.report(seat.channel)
    assert found["forks"] < LIMITS.pids
    assert found["refused"] == os.strerror(errno.EAGAIN)
    with pytest.raises(ChannelTimeout):
        seat.channel.recv(time.monotonic() + 0.2)
    seat.close_quickly()


def test_a_memory_bomb_is_killed_at_the_memory_cap(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "memory_bomb", limits=Limits(memory_mb=128))
    with pytest.raises(ChannelClosed):
        seat.channel.recv(time.monotonic() + 20)
    lines = seat.channel.stderr().decode().splitlines()
    assert "REPORT never stopped" not in lines
    assert lines and int(lines[-1].split()[1]) <= 128
    seat.close_quickly()


def test_spinning_threads_get_one_cpu_and_the_worker_stays_responsive(
    tmp_path: Path, worker_unharmed: None
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


def test_a_bot_that_sleeps_forever_times_out(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "sleep_forever")
    seat.channel.send(b'{"type": "hello"}')
    started = time.monotonic()
    with pytest.raises(ChannelTimeout):
        seat.channel.recv(started + 0.5)
    assert time.monotonic() - started < 1.0
    seat.close_quickly()


def test_a_bot_that_never_reads_makes_send_time_out(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "never_reads")
    started = time.monotonic()
    with pytest.raises(ChannelTimeout):
        for _ in range(1000):
            seat.channel.send(b"z" * 4096)
    assert time.monotonic() - started < 5
    seat.close_quickly()


def test_a_stdout_flood_without_newlines_is_refused(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "stdout_flood")
    with pytest.raises(LineTooLong) as refused:
        seat.channel.recv(time.monotonic() + 10)
    assert refused.value.head.startswith(b"xxxx")
    seat.close_quickly()


def test_an_enormous_line_is_refused_and_the_next_one_read(
    tmp_path: Path, worker_unharmed: None
) -> None:
    seat = attack(tmp_path, "huge_line")
    with pytest.raises(LineTooLong):
        seat.channel.recv(time.monotonic() + 10)
    assert seat.channel.recv(time.monotonic() + 10) == b"after"
    seat.close_quickly()


def test_a_stderr_flood_is_capped_and_the_bot_still_answers(
    tmp_path: Path, worker_unharmed: None
) -> None:
    seat = attack(tmp_path, "stderr_flood")
    for number in range(20):
        seat.channel.send(b"%d" % number)
        assert seat.channel.recv(time.monotonic() + 10) == b"%d" % number
    log = seat.channel.stderr()
    assert b"bytes dropped" in log
    assert len(log) < LIMITS.stderr_bytes + 100
    seat.close_quickly()
    assert seat.channel.stderr() == log or len(seat.channel.stderr()) < LIMITS.stderr_bytes + 100


def test_invalid_utf8_comes_through_as_bytes(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "invalid_utf8")
    seat.channel.send(b'{"type": "hello"}')
    assert seat.channel.recv(time.monotonic() + 10) == b'\xff\xfe{"type": "ready"}\xc0'
    seat.close_quickly()


def test_the_bot_has_no_network_at_all(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "network")
    found = harness.report(seat.channel)
    assert found["interfaces"] == ["lo"]
    assert found["routes"] == []
    assert found["redis"] == found["postgres"] == "ConnectionRefusedError"
    assert found["docker_socket"] is False
    assert found["dns"] == "gaierror"
    seat.close_quickly()


def test_the_bot_sees_neither_host_files_nor_other_bots_code(
    tmp_path: Path, worker_unharmed: None
) -> None:
    host_secret, victim_secret = "host-" + os.urandom(8).hex(), "victim-" + os.urandom(8).hex()
    marker = tmp_path / "marker.txt"
    marker.write_text(host_secret)
    victim = attack(tmp_path, "sleep_forever", extra={"secret.txt": victim_secret})
    env = {
        "HOST_MARKER": str(marker),
        "SECRETS": f"{host_secret},{victim_secret}",
        "REPO": str(Path(__file__).resolve().parents[2]),
    }
    seat = attack(tmp_path, "read_host", env=env)
    found = harness.report(seat.channel, timeout=60)
    assert found["found"] == []
    assert found["tried"] == {
        str(marker): "FileNotFoundError",
        "/etc/shadow": "PermissionError",
        "/proc/1/root/etc/shadow": "PermissionError",
        "/var/lib/docker": "FileNotFoundError",
        "/var/run/docker.sock": "FileNotFoundError",
        env["REPO"]: "FileNotFoundError",
    }
    seat.close_quickly()
    victim.close_quickly()


def test_nothing_outside_tmp_is_writable(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "write_outside_tmp")
    written = harness.report(seat.channel)
    assert written.pop("/tmp/x") == "written"
    assert written.pop("/dev/shm/x") == "FileNotFoundError"  # no shared memory at all
    assert set(written.values()) <= {"OSError", "PermissionError"}, written
    seat.close_quickly()


def test_tmp_is_capped_in_size_and_per_file(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "fill_tmp", limits=Limits(tmp_mb=12, file_size_mb=4))
    found = harness.report(seat.channel)
    assert found["first_file_mb"] == 4
    assert found["first_file_error"] == f"OSError {errno.EFBIG}"
    assert found["last_error"] == errno.ENOSPC
    assert found["total_mb"] <= 12
    seat.close_quickly()


def test_file_descriptors_are_capped(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "exhaust_fds", limits=Limits(open_files=64))
    found = harness.report(seat.channel)
    assert found["opened"] < 64
    assert found["refused"] == f"OSError {errno.EMFILE}"
    seat.close_quickly()


def test_proc_shows_only_the_bots_own_processes(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "read_proc")
    found = harness.report(seat.channel)
    assert set(found["processes"].values()) <= {"docker-init", "python3"}, found["processes"]
    assert found["processes"]["1"] == "docker-init"
    assert set(found["touched"].values()) <= {"PermissionError", "OSError", "FileNotFoundError"}
    seat.close_quickly()


def test_signals_reach_nothing_outside_the_bot(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "signals", env={"HOST_PID": os.environ["HOST_PID"]})
    found = harness.report(seat.channel)
    assert found["ppid"] == 1
    assert found["host"] == "ProcessLookupError"
    assert found["pid1_alive"] is True
    with pytest.raises(ChannelClosed):  # its TERM to PID 1 came back to the bot itself
        seat.channel.recv(time.monotonic() + 10)
    seat.close_quickly()


def test_orphans_are_reaped_by_the_init(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "zombies")
    found = harness.report(seat.channel)
    assert found == {"orphan_zombies": 0, "own_zombies": 3}
    seat.close_quickly()


def test_privilege_escalation_is_refused(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "privilege")
    found = harness.report(seat.channel)
    refused = os.strerror(errno.EPERM)
    for call in ("setuid", "unshare_user", "unshare_mount", "mount", "keyctl", "chroot"):
        assert found[call] in (refused, os.strerror(errno.ENOSYS)), (call, found[call])
    assert found["Uid"] == "65534"
    assert int(found["CapEff"], 16) == int(found["CapPrm"], 16) == 0
    assert found["NoNewPrivs"] == "1"
    assert found["Seccomp"] == "2"
    if found["setuid_programs"]:
        assert found["mount_program"] != 0
    seat.close_quickly()


def test_io_uring_is_refused(tmp_path: Path, worker_unharmed: None) -> None:
    seat = attack(tmp_path, "io_uring")
    found = harness.report(seat.channel)
    assert found["fd"] == -1
    assert found["errno"] == errno.EPERM
    seat.close_quickly()


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
