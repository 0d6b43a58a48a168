"""Ending every process of a container at once, whatever it did to its priorities.

``docker kill`` and ``docker rm -f`` signal the container's PID 1 only; the kernel then
kills the rest of the PID namespace from PID 1's exit path. A PID 1 that never gets the
CPU (starved by its own container's spinners) never gets there, and the engine gives up
("did not receive an exit event"). So, where the worker sees the host's cgroups (a worker
on the host, as root), the container's processes are ended through its cgroup first:
cgroup v2's ``cgroup.kill``; on v1, freeze the cgroup (no process can fork or run any
more), SIGKILL every task, thaw (each dies as it resumes). Elsewhere (a worker in a
container of its own) this finds no cgroup and the engine's kill is all there is.

The same cgroups count each container's CPU seconds (``CpuCounter``): a bot's clock
(``judge.bot_clock``) is its own CPU, not the host's wall clock.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
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
    """A top-level cgroup for bot containers weighing ``shares`` (a host process weighs
    1024), made or re-weighted now: ``cpu.shares`` on cgroup v1, the same weight as
    ``cpu.weight`` on cgroup v2 (where a host process weighs 100). Its path for the
    engine (cgroupfs driver), or None where this process cannot make one (no root, no
    host cgroups: a worker in a container of its own)."""
    if (ROOT / "cgroup.controllers").exists():
        folder, file, value = ROOT / name, "cpu.weight", v2_weight(shares)
    elif (ROOT / "cpu" / "cpu.shares").exists():
        folder, file, value = ROOT / "cpu" / name, "cpu.shares", shares
    else:
        return None
    if not _sees_the_root(folder.parent):
        return None  # a container's own subtree: a group made here is not the host's /name
    try:
        folder.mkdir(exist_ok=True)
        (folder / file).write_text(str(value))
    except OSError:
        return None
    return f"/{name}"


def _sees_the_root(hierarchy: Path, mountinfo: Path = Path("/proc/self/mountinfo")) -> bool:
    """Whether the cgroup hierarchy mounted at ``hierarchy`` shows its root (a process of
    the host), not a container's own subtree (a worker in a container, whose
    ``/sys/fs/cgroup/cpu`` is its ``/docker/<id>``); True where it is no mount at all."""
    where = os.path.realpath(hierarchy)
    try:
        lines = mountinfo.read_text().splitlines()
    except OSError:
        return True
    roots = [
        fields[3] for fields in map(str.split, lines) if len(fields) > 4 and fields[4] == where
    ]
    return not roots or roots[-1] == "/"


def v2_weight(shares: int) -> int:
    """cgroup v2's ``cpu.weight`` (1-10000, 100 a process) for v1's ``cpu.shares``."""
    return max(1, min(10_000, round(shares * 100 / 1024)))


def weight_of(name: str) -> int | None:
    """A top-level cgroup's CPU weight in v1's unit (``cpu.shares``), None if unseen."""
    for path, scale in (
        (ROOT / "cpu" / name / "cpu.shares", 1.0),
        (ROOT / name / "cpu.weight", 10.24),
    ):
        with contextlib.suppress(OSError, ValueError):
            return round(int(path.read_text()) * scale)
    return None


def top_groups(prefix: str) -> list[str]:
    """The names of the top-level cgroups beginning with ``prefix`` (cpu hierarchy)."""
    folder = ROOT / "cpu" if (ROOT / "cpu" / "cpu.shares").exists() else ROOT
    try:
        return sorted(p.name for p in folder.iterdir() if p.name.startswith(prefix) and p.is_dir())
    except OSError:
        return []


def remove_group(name: str) -> bool:
    """Remove an empty top-level cgroup from every hierarchy the engine made it in (v1:
    one folder per controller; v2: one); whether it is gone. A group that still holds a
    container stays (the kernel refuses: EBUSY)."""
    folders = (
        [ROOT / name] if (ROOT / "cgroup.controllers").exists() else list(ROOT.glob(f"*/{name}"))
    )
    gone = True
    for folder in folders:
        try:
            folder.rmdir()
        except FileNotFoundError:
            continue
        except OSError:
            gone = False
    return gone


#: Seconds per unit of each CPU counter a cgroup may keep: cgroup v2's ``cpu.stat``
#: (usage_usec), cgroup v1's ``cpuacct.usage`` (nanoseconds).
V2_STAT: Final = "cpu.stat"
V1_USAGE: Final = "cpuacct.usage"


class CpuCounter:
    """A container's CPU seconds so far, read from its cgroup where this process sees it
    (a worker on the host, as the engine's cgroupfs or systemd driver lays it out): call
    it; None where it cannot be read (a worker in a container of its own, the container
    gone). A bot's clock takes differences of it (``judge.bot_clock``), so a pooled
    container serving many seatings charges each only what it added.

    The counter's file is found once and kept open (a read is then one ``pread`` of
    about a microsecond, where opening it each time cost 150 us a move); ``close`` lets
    it go, and the next call opens it again (a pooled container's next seating)."""

    def __init__(self, container_id: str, parent: str | None = None) -> None:
        self.container_id = container_id
        self.parent = parent
        self._path: Path | None = None
        self._fd: int | None = None
        self._lock = threading.Lock()

    def __call__(self) -> float | None:
        with self._lock:
            if self._fd is None and not self._open():
                return None
            assert self._fd is not None and self._path is not None
            try:
                text = os.pread(self._fd, 4096, 0).decode()
            except OSError:
                return None
        return _cpu_seconds(self._path.name, text)

    def _open(self) -> bool:
        if self._path is None:
            self._path = _cpu_file(self.container_id, self.parent)
        if self._path is None:
            return False
        try:
            self._fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False
        return True

    def close(self) -> None:
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        self.close()


def _cpu_file(container_id: str, parent: str | None) -> Path | None:
    """Where the container's CPU counter is, if this process can see it."""
    relative = f"{(parent or DEFAULT_PARENT).strip('/')}/{container_id}"
    scope = f"system.slice/docker-{container_id}.scope"
    candidates = [
        ROOT / relative / V2_STAT,
        ROOT / scope / V2_STAT,
        ROOT / "cpuacct" / relative / V1_USAGE,
        ROOT / "cpu,cpuacct" / relative / V1_USAGE,
        ROOT / "cpuacct" / scope / V1_USAGE,
    ]
    return next((path for path in candidates if path.exists()), None)


def _cpu_seconds(name: str, text: str) -> float | None:
    """Seconds from a counter file's text (``name``: which counter it is)."""
    try:
        if name == V1_USAGE:
            return int(text) / 1e9
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
    except ValueError:
        return None
    return None
