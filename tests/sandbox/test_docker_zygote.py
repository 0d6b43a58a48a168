"""The zygote of a pooled Python bot's container (``sandbox.supervisor``): each seating's
bot is forked from it with numpy already imported, from the state an exec'd bot starts
from, with random state of its own; a hostile or crashing bot cannot reach it (signals,
ptrace, its memory, descriptors and control socket are refused, it outlives a crash and
a fork bomb), and one that died is started again while the seatings go on."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from sandbox.docker_backend import DockerBackend
from sandbox.parallel import SeatStart
from sandbox.pool import PoolLimits
from sandbox.reuse import ReusedSeat
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

ATTACK = "zygote"
#: What the kernel says to a bot going after another user's, non-dumpable process.
REFUSED = {"PermissionError", "FileNotFoundError"}
REPORT_S = 60.0


def backend(*, zygote: bool) -> DockerBackend:
    return DockerBackend(
        pipe_root=harness.PIPE_ROOT,
        client=harness.client(),
        pool_limits=PoolLimits(),
        zygote=zygote,
    )


def pooled(folder: Path, name: str, *, zygote: bool = True) -> tuple[ReusedSeat, str]:
    label = harness.label(name)
    return backend(zygote=zygote).start_pooled(SeatStart(folder, label), label), label


def seating(container: ReusedSeat, env: dict[str, str] | None = None) -> dict[str, Any]:
    channel = container.spawn(env)
    try:
        return harness.report(channel, REPORT_S)
    finally:
        channel.close()


def ended(container: ReusedSeat) -> None:
    assert not container.broken  # every clean-up worked
    container.close()
    assert container.wait_removed(60)


def test_a_bot_cannot_reach_its_zygote_and_a_crash_or_a_fork_bomb_leaves_it(
    tmp_path: Path,
) -> None:
    container, _ = pooled(harness.bot_folder(tmp_path, ATTACK), "zygote-attack")
    try:
        reports = [seating(container, {"CRASH": crash}) for crash in ("segv", "bomb", "")]
    finally:
        ended(container)
    for report in reports:
        assert report["preloaded"] is True  # forked from the zygote
        assert [report["ppid"]] == report["zygotes"]  # its parent, another user's
        assert report["fds"] == [0, 1, 2, 3]  # its FIFOs and this listing: no socket
        assert len(report["zygotes"]) == 1
        tried = {k: v for k, v in report.items() if k.startswith("kill_")}
        tried |= {k: report[k] for k in ("ptrace_attach", "mem", "zygote_fds")}
        tried |= {k: report[k] for k in ("control", "environ", "renice", "affinity", "prlimit")}
        assert set(tried.values()) <= REFUSED, tried
        assert report["zygote_state"] in {"S", "R"}  # not stopped, not gone
    # the same zygote served all three: neither the crash nor the bomb reached it
    assert len({(r["zygotes"][0], r["zygote_started"]) for r in reports}) == 1


def test_each_forked_bot_draws_its_own_random_numbers(tmp_path: Path) -> None:
    container, _ = pooled(harness.bot_folder(tmp_path, ATTACK), "zygote-random")
    try:
        reports = [seating(container) for _ in range(3)]
    finally:
        ended(container)
    assert all(report["preloaded"] for report in reports)
    assert len({report["random"] for report in reports}) == 3
    assert len({report["numpy_random"] for report in reports}) == 3


def test_a_forked_bot_starts_from_the_state_of_an_exec_ed_one(tmp_path: Path) -> None:
    """attacks/plant.py's state (limits, nice, policy, affinity, I/O priority, umask,
    groups, ids, capabilities, environment, folder, PID 1's) is the same whether the
    bot was forked from the zygote or exec'd (a container without one)."""
    folder = harness.bot_folder(tmp_path, "plant")
    states = {}
    for zygote in (True, False):
        container, _ = pooled(folder, f"zygote-state-{zygote}", zygote=zygote)
        try:
            report = seating(container, {"JUDGE_HOUSE_SEED": "7"})
        finally:
            ended(container)
        assert report["zygote"] is zygote
        states[zygote] = report["state"]
    assert states[True] == states[False]


def test_a_dead_zygote_is_started_again(tmp_path: Path) -> None:
    """Killed from outside (as the kernel's OOM killer would): the next seating is
    exec'd, the one after forked from a new zygote."""
    container, label = pooled(harness.bot_folder(tmp_path, ATTACK), "zygote-restart")
    try:
        first = seating(container)
        (ident,) = harness.containers_labelled(label)
        rows = harness.client().containers.get(ident).top(ps_args="-o pid,comm")["Processes"]
        (zygote,) = [int(pid) for pid, name in rows if name == "zygote"]
        os.kill(zygote, signal.SIGKILL)
        second, third = seating(container), seating(container)
    finally:
        ended(container)
    assert first["preloaded"] and not second["preloaded"] and third["preloaded"]
    before, after = (r["zygotes"] + [r["zygote_started"]] for r in (first, third))
    assert before != after  # another process


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
