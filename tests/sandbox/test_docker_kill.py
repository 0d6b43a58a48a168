"""A kill that always works: a bot that tries to starve PID 1 (SCHED_IDLE, nice 19) and
spins 40 children (attacks/starve.py) is ended within seconds when its seating stops,
in a fresh container (the container is gone) and in a pooled one (the supervisor is alone
again, and the container is gone once the pool lets it go), for a bot of every runtime
image and through a whole match."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox import cgroups
from sandbox.channel import ChannelClosed
from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from sandbox.parallel import SeatStart
from sandbox.pool import PoolLimits
from sandbox.runtimes import RUNTIMES
from tests.sandbox.attacks import harness, runtimes
from tests.sandbox.test_docker_lifecycle import duplicate_plan, zipped
from tournaments.play import runner

pytestmark = pytest.mark.docker

STARVE = harness.ATTACKS / "starve.py"
#: Room for 40 spinners next to a JVM's threads.
LIMITS = Limits(pids=128)
#: What "within seconds" means here, whatever the machine's load.
ENDED_S = 20.0
REPORT_S = 120.0


def within(seconds: float, done: Callable[[], bool]) -> bool:
    """Whether ``done`` holds within ``seconds`` (checked every 0.1 s)."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def processes(container_id: str) -> int:
    """How many processes run in the container but a Python container's zygote (the
    container's, started again if killed: ``sandbox.supervisor``); 0 once it is gone."""
    found = harness.client().api.containers(all=True, filters={"id": container_id})
    if not found or found[0]["State"] != "running":
        return 0
    rows = harness.client().api.top(container_id, ps_args="-o pid,comm")["Processes"] or []
    return len([row for row in rows if row[-1] != "zygote"])


def assert_refused_and_spinning(report: dict[str, object]) -> None:
    assert report["pid1_idle"] == report["pid1_nice"] == "PermissionError", report
    assert report["spinners"] == 40, report


@pytest.mark.parametrize("language", sorted(RUNTIMES))
def test_a_fresh_starving_bot_is_gone_within_seconds(tmp_path: Path, language: str) -> None:
    folder = runtimes.bot_folder(tmp_path, language, STARVE)
    label = harness.label(f"starve-{language}")
    channel = harness.pipe_backend().start(folder, label=label, limits=LIMITS)
    try:
        assert_refused_and_spinning(harness.report(channel, REPORT_S))
    finally:
        channel.close()
    assert within(ENDED_S, lambda: harness.containers_labelled(label) == [])


@pytest.mark.parametrize("language", sorted(RUNTIMES))
def test_a_pooled_starving_bot_is_ended_within_seconds(tmp_path: Path, language: str) -> None:
    folder = runtimes.bot_folder(tmp_path, language, STARVE)
    backend = DockerBackend(
        pipe_root=harness.PIPE_ROOT, client=harness.client(), pool_limits=PoolLimits()
    )
    label = harness.label(f"starve-pool-{language}")
    container = backend.start_pooled(SeatStart(folder, label, LIMITS), label)
    (ident,) = harness.containers_labelled(label)
    try:
        channel = container.spawn()
        try:
            assert_refused_and_spinning(harness.report(channel, REPORT_S))
        finally:
            channel.close()  # the supervisor kills every process of the seating
        assert not container.broken
        assert processes(ident) == 1  # the supervisor alone, ready for another match
    finally:
        container.close()
    assert within(ENDED_S, lambda: harness.containers_labelled(label) == [])


@pytest.mark.parametrize("lifecycle", runner.LIFECYCLES)
def test_no_container_is_left_after_a_match_with_a_starving_bot(
    lifecycle: runner.Lifecycle,
) -> None:
    backend = DockerBackend(
        pipe_root=harness.PIPE_ROOT, client=harness.client(), pool_limits=PoolLimits()
    )
    instance = harness.label(f"starve-match-{lifecycle}")
    seats = [
        runner.SeatPlan("starver", "", code=zipped(STARVE.read_text())),
        runner.SeatPlan("house:random", "", house_policy="random"),
    ]
    plan = duplicate_plan("oceans11", seats, instance)
    clock = {**plan.time_control, "startup_s": 5.0}  # it never says ready: a fault
    plan = runner.MatchPlan(**{**plan.__dict__, "limits": {"pids": 128}, "time_control": clock})
    outcome, _ = runner.play(plan, lambda: backend, lifecycle=lifecycle)
    assert [fault["bot"] for fault in outcome["faults"]] == [0]  # it never said ready
    found = harness.parse_report(outcome["logs"][0])
    assert found is not None, outcome["logs"][0][-2000:]
    assert_refused_and_spinning(found)
    pooled = harness.containers_labelled(f"{instance}-pool")
    assert all(processes(ident) <= 1 for ident in pooled)  # only idle supervisors
    assert backend.pool.close(ENDED_S)
    assert within(ENDED_S, lambda: harness.leftovers_of_this_run() == [])


def test_the_cgroup_kill_ends_a_container_without_the_engine(tmp_path: Path) -> None:
    """``sandbox.cgroups`` finds the container's cgroup (here, on the host, as root) and
    ends every process in it: the bot's output ends with no engine call."""
    folder = harness.source_folder(tmp_path, "sleeper", "import time\ntime.sleep(600)\n")
    label = harness.label("cgroup-kill")
    channel = harness.pipe_backend().start(folder, label=label, limits=LIMITS)
    try:
        (ident,) = harness.containers_labelled(label)
        parent = harness.client().api.inspect_container(ident)["HostConfig"]["CgroupParent"]
        assert cgroups.kill_all(ident, parent or None)
        with pytest.raises(ChannelClosed):
            channel.recv(time.monotonic() + ENDED_S)
    finally:
        channel.close()
    assert within(ENDED_S, lambda: harness.containers_labelled(label) == [])


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
