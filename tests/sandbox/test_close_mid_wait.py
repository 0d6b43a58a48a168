"""A channel closed from another thread while the referee waits on the bot (a stop
signal during a long move: tournaments.play.runner.StopSignal) ends that wait at once, in
every transport: the bot is removed first, then its descriptors are closed, and nothing
fails on the way ("concurrent poll() invocation" used to abort the close, leaving the
bot to run out its move)."""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox.channel import Channel, ChannelClosed
from sandbox.docker_backend import MATCH_LABEL, DockerBackend, bot_containers
from sandbox.limits import Limits
from sandbox.local import LocalBackend, NotASandboxWarning
from sandbox.parallel import SeatStart
from sandbox.reuse import ReusedSeat
from tests.sandbox.attacks import harness
from tests.sandbox.test_docker_lifecycle import duplicate_plan, zipped
from tournaments.play import runner

#: Its moves may take five minutes: only the stop signal can end the match early.
LONG_MOVES = {"startup_s": 60.0, "move_s": 300.0, "bank_s": 0.0}

#: Answers its first line, then thinks for ten minutes about the second.
SLOW = """\
import sys, time
sys.stdout.write(sys.stdin.readline())
sys.stdout.flush()
sys.stdin.readline()
time.sleep(600)
"""


def local(code: Path, label: str) -> Channel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        return LocalBackend().start(code, label=label, limits=Limits())


def docker_pipes(code: Path, label: str) -> Channel:
    return harness.pipe_backend().start(code, label=label, limits=Limits())


def docker_attach(code: Path, label: str) -> Channel:
    return harness.attach_backend().start(code, label=label, limits=Limits())


#: Pooled containers made here: they outlive their seating's channel, so the test ends them.
POOLED: list[ReusedSeat] = []


def docker_pooled(code: Path, label: str) -> Channel:
    POOLED.append(harness.pipe_backend().start_pooled(SeatStart(code, label), label))
    return POOLED[-1].spawn()


STARTS: dict[str, Callable[[Path, str], Channel]] = {
    "local": local,
    "docker-pipes": docker_pipes,
    "docker-attach": docker_attach,
    "docker-pooled": docker_pooled,
}


@pytest.mark.docker
@pytest.mark.parametrize("transport", sorted(STARTS))
def test_a_close_from_another_thread_ends_a_long_wait(
    tmp_path: Path, transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    code = harness.source_folder(tmp_path, "slow", SLOW)
    label = harness.label(f"midwait-{transport}")
    channel = STARTS[transport](code, label)
    channel.send(b"hello")
    assert channel.recv(time.monotonic() + 60) == b"hello"
    channel.send(b"think")
    closer = threading.Timer(0.5, channel.close)
    closer.start()
    began = time.monotonic()
    with caplog.at_level(logging.WARNING), pytest.raises(ChannelClosed):
        channel.recv(time.monotonic() + 300)
    waited = time.monotonic() - began
    closer.join()
    assert waited < 60, f"the wait lasted {waited:.1f} s"  # a hang guard: it is about 1 s
    assert not [r for r in caplog.records if "failed" in r.getMessage()], caplog.text
    channel.close()  # again, from this thread: nothing happens
    for seat in POOLED:
        assert not seat.broken  # the supervisor cleaned up after the killed seating
        seat.close()
        assert seat.wait_removed(60)
    deadline = time.monotonic() + 60
    while harness.containers_labelled(label) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert harness.containers_labelled(label) == []


#: Ready at once, then thinks for ten minutes about its first move.
SLOW_PLAYER = """\
import json, sys, time
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    else:
        time.sleep(600)
"""


@pytest.mark.docker
@pytest.mark.parametrize("lifecycle", ["pool", "warm", "fresh"])
def test_a_stop_signal_ends_a_match_during_a_long_move(lifecycle: runner.Lifecycle) -> None:
    instance = harness.label(f"stop-{lifecycle}")
    seats = [
        runner.SeatPlan("slow", "", code=zipped(SLOW_PLAYER)),
        runner.SeatPlan("house:random", "", house_policy="random"),
    ]
    plan = duplicate_plan("oceans11", seats, instance)
    plan = runner.MatchPlan(**{**plan.__dict__, "time_control": LONG_MOVES})
    backend = DockerBackend(pipe_root=harness.PIPE_ROOT, client=harness.client(), clean=False)
    stop = runner.StopSignal()
    threading.Timer(3.0, stop.set, kwargs={"reason": "test"}).start()
    began = time.monotonic()
    try:
        with pytest.raises(runner.MatchStopped):
            runner.play(plan, lambda: backend, stop=stop, lifecycle=lifecycle)
        assert time.monotonic() - began < 90  # a hang guard: its move alone would take 300 s
    finally:
        assert backend.pool.close()
    # Removal is asked for as the match stops; on a loaded host the engine may still be
    # deleting a container then, so wait for the condition (a leak stays a failure).
    deadline = time.monotonic() + 60
    while ours(backend, instance) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ours(backend, instance) == []


def ours(backend: DockerBackend, instance: str) -> list[str]:
    """The labels of the bot containers of this test's matches that still exist."""
    left = [c.labels.get(MATCH_LABEL, "") for c in bot_containers(backend.client)]
    return [label for label in left if label.startswith(instance)]
