"""Each channel counts its bot's CPU seconds (judge.bot_clock times bots by them): a
container's through its cgroup, whichever way it lives (started, warm, pooled: each
seating charged only what it added), a local process through its own times."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from sandbox.local import LocalBackend, NotASandboxWarning
from sandbox.parallel import SeatStart
from sandbox.streams import StreamChannel
from tests.sandbox.attacks import harness

#: Computes for as many CPU seconds as the line says (by its own CPU clock), then echoes.
BURNS = """\
import sys, time
for line in sys.stdin:
    end = time.process_time() + float(line)
    while time.process_time() < end:
        pass
    print(line.strip(), flush=True)
"""


def burn(channel: StreamChannel, seconds: float) -> tuple[float, float]:
    """(CPU seconds counted, wall seconds) of asking the bot to compute for ``seconds``."""
    before, began = channel.cpu_seconds(), time.monotonic()
    channel.send(str(seconds).encode())
    assert channel.recv(time.monotonic() + 60) == str(seconds).encode()
    after = channel.cpu_seconds()
    assert before is not None and after is not None, "the bot's CPU is not counted"
    return after - before, time.monotonic() - began


def assert_counts(channel: StreamChannel) -> None:
    idle, _ = burn(channel, 0.0)
    busy, wall = burn(channel, 0.5)
    assert idle < 0.1
    assert 0.45 <= busy <= 0.65 and busy <= wall + 0.05


@pytest.fixture
def code(tmp_path: Path) -> Path:
    return harness.source_folder(tmp_path, "burns", BURNS)


@pytest.mark.docker
@pytest.mark.parametrize("transport", ["pipes", "attach"])
def test_a_started_containers_cpu_is_counted_through_its_cgroup(code: Path, transport: str) -> None:
    backend = harness.pipe_backend() if transport == "pipes" else harness.attach_backend()
    channel = backend.start(code, label=harness.label("cpu"), limits=Limits())
    assert isinstance(channel, StreamChannel)
    try:
        assert_counts(channel)
    finally:
        channel.close()


@pytest.mark.docker
def test_a_pooled_container_charges_each_seating_only_what_it_added(code: Path) -> None:
    backend = DockerBackend(pipe_root=harness.PIPE_ROOT, client=harness.client(), clean=False)
    seat = SeatStart(code, harness.label("cpu-pool"), Limits(), None)
    container = backend.start_pooled(seat, harness.label("cpu-pool"))
    try:
        for _ in range(2):  # the second seating's counter starts where the first left it
            channel = container.spawn()
            try:
                assert_counts(channel)
                assert (channel.cpu_seconds() or 0.0) > 0.45
            finally:
                channel.close()
    finally:
        container.close()
        assert container.wait_removed(60)


def test_a_local_process_cpu_is_counted_through_its_own_times(code: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        channel = LocalBackend().start(code, label="cpu", limits=Limits())
    try:
        assert_counts(channel)
    finally:
        channel.close()
    assert channel.cpu_seconds() is None  # the process is gone
