"""The local-process backend: line channel, caps, limits and a close that never hangs."""

from __future__ import annotations

import os
import textwrap
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbox.channel import ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits
from sandbox.local import LocalBackend, LocalChannel, NotASandboxWarning
from sandbox.runtimes import BadBotCode

Start = Callable[..., LocalChannel]
LIMITS = Limits(line_bytes=1024, stderr_bytes=2048, memory_mb=256)


@pytest.fixture
def backend() -> LocalBackend:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        return LocalBackend(send_timeout_s=0.5, grace_s=0.2)


@pytest.fixture
def run(backend: LocalBackend, tmp_path: Path) -> Iterator[Start]:
    started: list[LocalChannel] = []

    def start(source: str, limits: Limits = LIMITS) -> LocalChannel:
        folder = tmp_path / f"bot{len(started)}"
        folder.mkdir()
        (folder / "main.py").write_text(textwrap.dedent(source))
        channel = backend.start(folder, label="test", limits=limits)
        started.append(channel)
        return channel

    yield start
    for channel in started:
        channel.close()


ECHO = """
import sys
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
"""


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


def test_the_backend_warns_that_it_is_not_a_security_boundary() -> None:
    with pytest.warns(NotASandboxWarning, match="NOT a security boundary"):
        LocalBackend()


def test_a_bot_folder_needs_an_entry_file(backend: LocalBackend, tmp_path: Path) -> None:
    with pytest.raises(BadBotCode, match=r"no entry file.*main\.py"):
        backend.start(tmp_path, label="x", limits=LIMITS)


def test_a_language_whose_toolchain_the_host_lacks_is_a_clear_error(
    backend: LocalBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools-here"))
    (tmp_path / "main.cpp").write_text("int main() {}\n")
    with pytest.raises(BadBotCode, match=r"C\+\+20.*not installed.*--sandbox docker"):
        backend.start(tmp_path, label="x", limits=LIMITS)


def test_lines_go_both_ways(run: Start) -> None:
    channel = run(ECHO)
    channel.send(b'{"a":1}')
    channel.send(b"two")
    assert channel.recv(soon()) == b'{"a":1}'
    assert channel.recv(soon()) == b"two"


def test_recv_times_out_at_the_deadline(run: Start) -> None:
    channel = run("import time; time.sleep(30)")
    began = time.monotonic()
    with pytest.raises(ChannelTimeout):
        channel.recv(began + 0.2)
    assert 0.2 <= time.monotonic() - began < 1.0


def test_a_line_waiting_past_the_deadline_is_still_delivered(run: Start) -> None:
    channel = run("print('early', flush=True); import time; time.sleep(30)")
    time.sleep(0.5)
    assert channel.recv(time.monotonic() - 1.0) == b"early"


def test_an_overlong_line_is_refused_with_its_head(run: Start) -> None:
    channel = run("import sys; sys.stdout.write('x' * 5000 + '\\n'); sys.stdout.flush()")
    with pytest.raises(LineTooLong) as caught:
        channel.recv(soon())
    assert caught.value.head.startswith(b"xxxx") and len(caught.value.head) <= 1024


def test_an_endless_line_is_cut_off_without_buffering_it(run: Start) -> None:
    channel = run("import sys\nwhile True: sys.stdout.write('y' * 65536)")
    with pytest.raises(LineTooLong):
        channel.recv(soon())
    assert channel.held() <= LIMITS.line_bytes + 1


def test_an_exit_is_reported_with_its_status(run: Start) -> None:
    channel = run("import sys; sys.exit(7)")
    with pytest.raises(ChannelClosed, match="exited with status 7"):
        channel.recv(soon())


def test_sending_to_a_dead_bot_says_it_is_gone(run: Start) -> None:
    channel = run("pass")
    with pytest.raises(ChannelClosed):
        channel.recv(soon())
    with pytest.raises(ChannelClosed):
        for _ in range(100):
            channel.send(b"x" * 1000)


def test_a_bot_that_never_reads_cannot_block_the_sender(run: Start) -> None:
    channel = run("import time; time.sleep(30)")
    began = time.monotonic()
    with pytest.raises(ChannelTimeout, match="did not read its input"):
        for _ in range(1000):
            channel.send(b"z" * 10_000)
    assert time.monotonic() - began < 10  # blocking would be 30 s; a loaded machine is slow


def test_stderr_is_capped_and_kept_after_close(run: Start) -> None:
    channel = run("import sys\nfor i in range(2000): sys.stderr.write('log line %d\\n' % i)")
    with pytest.raises(ChannelClosed):
        channel.recv(soon())
    channel.close()
    log = channel.stderr()
    assert log.startswith(b"log line 0\n") and b"more bytes dropped" in log
    assert len(log) < 2048 + 100


def test_the_memory_limit_stops_a_greedy_bot(run: Start) -> None:
    channel = run("data = bytearray(1 << 30)\nprint('allocated', flush=True)")
    with pytest.raises(ChannelClosed, match="exited with status 1"):
        channel.recv(soon())
    assert b"MemoryError" in channel.stderr()


def test_the_bot_sees_only_a_small_environment(run: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_TEST_SECRET", "hunter2")
    channel = run("import os; print(os.environ.get('JUDGE_TEST_SECRET'), flush=True)")
    assert channel.recv(soon()) == b"None"


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def test_close_kills_the_whole_process_group_without_hanging(run: Start) -> None:
    channel = run(
        """
        import signal, subprocess, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(child.pid, flush=True)
        while True:
            time.sleep(1)
        """
    )
    grandchild = int(channel.recv(soon()))
    assert _alive(grandchild)
    began = time.monotonic()
    channel.close()
    channel.close()
    assert time.monotonic() - began < 10  # a loaded machine is slow; a hang is unbounded
    deadline = soon(2.0)
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(grandchild)
    assert channel.process.returncode is not None
    with pytest.raises(ChannelClosed):
        channel.send(b"after close")


def test_a_bot_is_a_group_leader_of_its_own(run: Start) -> None:
    channel = run("import os; print(os.getpgrp(), os.getpid(), flush=True)")
    group, pid = channel.recv(soon()).split()
    assert group == pid and int(group) != os.getpgrp()


def test_a_line_written_in_pieces_arrives_whole(run: Start) -> None:
    channel = run(
        """
        import sys, time
        for piece in ('{"type":', '"ready"', '}\\n'):
            sys.stdout.write(piece)
            sys.stdout.flush()
            time.sleep(0.05)
        """
    )
    assert channel.recv(soon()) == b'{"type":"ready"}'
