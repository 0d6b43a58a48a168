"""The shared channel's memory bound: however the referee calls it (recv, or stderr over and
over while the bot floods), the bot's unread output held by the worker stays under the line
cap. Checked on the pipe channel to a local process, on both Docker transports and on the
local backend."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.buffers import LineSplitter
from sandbox.channel import LineTooLong
from sandbox.limits import Limits
from sandbox.local import LocalBackend, NotASandboxWarning
from sandbox.pipes import PipeChannel, SeatFolder
from sandbox.streams import CHUNK, StreamChannel
from tests.sandbox.attacks import harness

LIMITS = Limits(line_bytes=4096, stderr_bytes=2048)
LINE = b"z" * 99
#: Floods stdout with short lines and stderr with chatter, forever.
FLOOD = (
    "import sys\n"
    f"block = ({LINE.decode()!r} + '\\n') * 1000\n"
    "while True:\n"
    "    sys.stderr.write('still flooding\\n')\n"
    "    sys.stderr.flush()\n"
    "    sys.stdout.write(block)\n"
    "    sys.stdout.flush()\n"
)
#: The line buffer's bound: a line at the cap and its newline.
CAP = LIMITS.line_bytes + 1


def soon(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


def peak_while_asking_for_stderr(channel: StreamChannel, calls: int = 300) -> int:
    """The most output ``channel`` held over ``calls`` stderr() calls on a flooding bot."""
    assert channel.recv(soon()) == LINE  # the flood is under way
    peak = 0
    log = b""
    deadline = soon()  # on a busy host the first stderr may come after the calls
    for call in itertools.count():
        log = channel.stderr()
        peak = max(peak, channel.held())
        if call >= calls and (b"still flooding" in log or time.monotonic() > deadline):
            break
        if b"still flooding" not in log and call % 10 == 9:
            # Through the attach socket the engine may deliver stdout's frames before
            # stderr's first one, and the channel reads on only as stdout is consumed (its
            # memory bound): read a line, as the referee would, so the stream moves.
            assert channel.recv(soon()) == LINE
        time.sleep(0.0005)
    assert b"still flooding" in log  # its standard error was read all along
    return peak


def assert_still_in_step_and_closes(channel: StreamChannel) -> None:
    for _ in range(50):
        assert channel.recv(soon()) == LINE
    began = time.monotonic()
    channel.close()
    # A hang was the 30 s attach timeout; removing a container on a loaded engine took up to
    # 11 s in CI, so the bound sits between the two.
    assert time.monotonic() - began < 20, "closing a flooding bot must not hang"


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    return harness.source_folder(tmp_path, "flood", FLOOD)


@pytest.fixture
def fifo_channel(bot: Path, tmp_path: Path) -> Iterator[PipeChannel]:
    """The Docker pipe transport's channel, to a local process (no engine needed)."""
    seat = SeatFolder.create(tmp_path / "pipes", "flood", os.getuid())
    process = subprocess.Popen(seat.command([sys.executable, str(bot / "main.py")], str(seat.path)))
    channel = PipeChannel(seat, LIMITS, process.kill, 0.1)
    yield channel
    channel.close()
    process.kill()
    process.wait()


def test_repeated_stderr_calls_on_the_pipe_channel_stay_under_the_line_cap(
    fifo_channel: PipeChannel,
) -> None:
    assert peak_while_asking_for_stderr(fifo_channel) <= CAP
    assert_still_in_step_and_closes(fifo_channel)


@pytest.mark.docker
@pytest.mark.parametrize("transport", ["pipes", "attach"])
def test_repeated_stderr_calls_on_a_docker_channel_stay_under_the_line_cap(
    bot: Path, transport: str
) -> None:
    backend = harness.pipe_backend() if transport == "pipes" else harness.attach_backend()
    label = harness.label(f"stderr-flood-{transport}")
    channel = backend.start(bot, label=label, limits=LIMITS)
    assert isinstance(channel, StreamChannel)
    try:
        peak = peak_while_asking_for_stderr(channel)
        # The attach socket carries stdout and stderr together: one read may be set aside.
        assert peak <= (CAP if transport == "pipes" else CAP + CHUNK)
        assert_still_in_step_and_closes(channel)
    finally:
        channel.close()
    assert harness.containers_labelled(label) == []


def test_repeated_stderr_calls_on_the_local_backend_stay_under_the_line_cap(bot: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        backend = LocalBackend(grace_s=0.1)
    channel = backend.start(bot, label="stderr-flood", limits=LIMITS)
    try:
        assert peak_while_asking_for_stderr(channel) <= CAP
        assert_still_in_step_and_closes(channel)
    finally:
        channel.close()


def test_the_splitter_takes_only_what_fits_and_loses_nothing() -> None:
    splitter = LineSplitter(cap=10)
    stream = b"".join(b"%d\n" % n for n in range(1000))
    lines: list[bytes] = []
    while stream:
        stream = stream[splitter.feed(stream) :]
        assert len(splitter) <= 11
        while (line := splitter.next_line()) is not None:
            lines.append(line)
    assert lines == [b"%d" % n for n in range(1000)]


def test_an_over_long_line_is_skipped_as_it_arrives_without_being_held() -> None:
    splitter = LineSplitter(cap=10)
    assert splitter.feed(b"x" * 100) == 11
    with pytest.raises(LineTooLong):
        splitter.next_line()
    for _ in range(100):
        assert splitter.feed(b"x" * 1000) == 1000  # dropped at once
        assert len(splitter) == 0
    assert splitter.feed(b"xx\nnext\n") == 8
    assert splitter.next_line() == b"next"
