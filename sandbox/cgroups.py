"""Ending every process of a container at once, whatever it did to its priorities.

``docker kill`` and ``docker rm -f`` signal the container's PID 1 only; the kernel then
kills the rest of the PID namespace from PID 1's exit path. A PID 1 that never gets the
CPU (starved by its own container's spinners) never gets there, and the engine gives up
("did not receive an exit event"). So, where the worker sees the host's cgroups (a worker
on the host, as root), the container's processes are ended through its cgroup first:
cgroup v2's ``cgroup.kill``; on v1, freeze the cgroup (no process can fork or run any
more), SIGKILL every task, thaw (each dies as it resumes). Elsewhere (a worker in a
container of its own) this finds no cgroup and the engine's kill is all there is.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Final

ROOT: Final = Path("/sys/fs/cgroup")
#: The engine's cgroup parent when a container names none (cgroupfs driver).
DEFAULT_PARENT: Final = "docker"
#: How long freezing may take before the tasks are killed anyway.
FREEZE_TIMEOUT_S: Final = 2.0


def kill_all(container_id: str, parent: str | None = None) -> bool:
    """SIGKILL every process of the container's cgroup; whether its cgroup was found."""
    relative = f"{(parent or DEFAULT_PARENT).strip('/')}/{container_id}"
    unified = ROOT / relative / "cgroup.kill"
    if unified.exists():
        return _write(unified, "1")
    freezer = ROOT / "freezer" / relative
    if not (freezer / "freezer.state").exists():
        return False
    _write(freezer / "freezer.state", "FROZEN")
    try:
        _wait_frozen(freezer / "freezer.state")
        for pid in _tasks(freezer / "tasks"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    finally:
        _write(freezer / "freezer.state", "THAWED")
    return True


def _wait_frozen(state: Path) -> None:
    deadline = time.monotonic() + FREEZE_TIMEOUT_S
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if state.read_text().strip() == "FROZEN":
                return
        time.sleep(0.005)


def _tasks(path: Path) -> list[int]:
    try:
        return [int(line) for line in path.read_text().split()]
    except OSError:
        return []


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


def weighted_parent(name: str, shares: int) -> str | None:
    """A cgroup (v1, the engine's cgroupfs driver) for bot containers weighing ``shares``
    (a host process weighs 1024), made or re-weighted now; its path for the engine, or
    None where this process cannot make one (cgroup v2, no root, no host cgroups)."""
    cpu = ROOT / "cpu"
    if not (cpu / "cpu.shares").exists():
        return None
    folder = cpu / name
    try:
        folder.mkdir(exist_ok=True)
        (folder / "cpu.shares").write_text(str(shares))
    except OSError:
        return None
    return f"/{name}"
