"""CPU weights that follow the work (docs/sandbox.md, "CPU under load"): each worker
process's bot containers go under a top-level cgroup of its own, weighing
``BOT_SHARES``, so that N workers' bots share the CPU by worker, not by container
count; a closed container leaves it, and a dead worker's group goes with the next
backend's start. A worker that cannot make cgroups (compose: a worker container) still
gets a group of its own, made by the engine at its default weight."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox import cgroups
from sandbox.container_spec import CGROUP_LABEL
from sandbox.docker_backend import BOT_SHARES, DockerBackend, worker_cgroup
from sandbox.limits import Limits
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

CPU = Path("/sys/fs/cgroup/cpu")


def _container(label: str) -> dict[str, object]:
    (container_id,) = harness.containers_labelled(label)
    attrs: dict[str, object] = harness.client().api.inspect_container(container_id)
    return attrs


def test_a_workers_containers_share_its_own_weighted_group(tmp_path: Path) -> None:
    backend = harness.pipe_backend()
    group = worker_cgroup()
    assert backend.cgroup_parent == f"/{group}"
    assert (CPU / group / "cpu.shares").read_text().strip() == str(BOT_SHARES)
    bot = harness.source_folder(tmp_path, "echo", harness.ECHO)
    seats = [(harness.label(f"share{i}"), cpus) for i, cpus in enumerate((0.5, 1.0))]
    channels = [backend.start(bot, label=label, limits=Limits(cpus=cpus)) for label, cpus in seats]
    ids = []
    for (label, cpus), channel in zip(seats, channels, strict=True):
        attrs = _container(label)
        ids.append(str(attrs["Id"]))
        host, config = attrs["HostConfig"], attrs["Config"]
        assert isinstance(host, dict) and isinstance(config, dict)
        assert host["CgroupParent"] == f"/{group}" and config["Labels"][CGROUP_LABEL] == f"/{group}"
        # Inside the worker's group each container weighs its CPUs, as among siblings.
        assert (CPU / group / ids[-1] / "cpu.shares").read_text().strip() == str(int(cpus * 1024))
        channel.send(b"x")
        assert channel.recv(time.monotonic() + 30) == b"x"
    for channel in channels:
        channel.close()
    # Removed, each container's own cgroup goes (the engine's shim deletes it just after,
    # which a loaded host may finish well after close returns: 20 s once was not enough).
    gone = _within(120, lambda: not any((CPU / group / i).exists() for i in ids))
    assert gone, f"the engine kept {_children(CPU / group)} under {group} after removing them"


CHILD = """
from sandbox.docker_backend import DockerBackend, worker_cgroup
from sandbox import cgroups
backend = DockerBackend(pipe_root=None, clean=False)
print(backend.cgroup_parent, cgroups.weight_of(worker_cgroup()))
"""


def test_each_worker_process_has_its_own_group_removed_after_it_ends() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, check=True
    )
    parent, weight = done.stdout.split()
    theirs = parent.removeprefix("/")
    assert theirs != worker_cgroup() and theirs.startswith(worker_cgroup(per_process=False))
    assert weight == str(BOT_SHARES) and theirs in cgroups.top_groups(theirs)
    # Its worker is gone: the next backend's start (its clean-up) removes the group, and
    # leaves this live worker's.
    DockerBackend(pipe_root=None, client=harness.client(), clean=True)
    assert theirs not in cgroups.top_groups(theirs)
    assert not list(Path("/sys/fs/cgroup").glob(f"*/{theirs}"))
    assert worker_cgroup() in cgroups.top_groups(worker_cgroup())


def test_a_worker_without_the_hosts_cgroups_gets_a_group_from_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker in a container sees no writable host cgroups (compose): it cannot weigh
    # its group, but the engine makes it, so its bots still share by worker.
    monkeypatch.setattr(cgroups, "ROOT", tmp_path / "no-cgroups")
    backend = DockerBackend(pipe_root=None, client=harness.client(), clean=False)
    group = worker_cgroup(per_process=False)
    assert backend.cgroup_parent == f"/{group}"
    monkeypatch.undo()
    label = harness.label("engine-made")
    bot = harness.source_folder(tmp_path, "echo", harness.ECHO)
    channel = backend.start(bot, label=label, limits=Limits())
    try:
        container_id = str(_container(label)["Id"])
        assert (CPU / group / container_id).is_dir()
        assert cgroups.weight_of(group) == 1024  # the engine's default: one process's
        channel.send(b"y")
        assert channel.recv(time.monotonic() + 30) == b"y"
    finally:
        channel.close()
    # The engine removes the container's own folder once the container is gone, which a
    # loaded host may finish after close returns: wait for that, not a clock.
    gone = _within(120, lambda: not (CPU / group / container_id).exists())
    assert gone, f"the engine kept {CPU / group / container_id} after removing the container"
    assert cgroups.remove_group(group), f"{group} still holds {_children(CPU / group)}"


def _within(seconds: float, condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` holds within ``seconds``, polled."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _children(folder: Path) -> list[str]:
    """The cgroups left under ``folder`` (what keeps it from being removed)."""
    return sorted(child.name for child in folder.iterdir() if child.is_dir())


def test_cgroup_v2_gets_the_same_weight_in_its_unit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpu io memory pids\n")
    monkeypatch.setattr(cgroups, "ROOT", tmp_path)
    assert cgroups.weighted_parent("cardjudge-bots-x", 4096) == "/cardjudge-bots-x"
    assert (tmp_path / "cardjudge-bots-x" / "cpu.weight").read_text() == "400"
    assert cgroups.weight_of("cardjudge-bots-x") == 4096
    assert cgroups.top_groups("cardjudge-bots") == ["cardjudge-bots-x"]
    assert cgroups.v2_weight(2) == 1 and cgroups.v2_weight(262_144) == 10_000
    (tmp_path / "cardjudge-bots-x" / "cpu.weight").unlink()
    assert cgroups.remove_group("cardjudge-bots-x")


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []


def test_a_containers_own_cgroup_subtree_is_not_taken_for_the_hosts(tmp_path: Path) -> None:
    # What a worker in a container (compose, the engine's socket mounted in) reads:
    # its /sys/fs/cgroup/cpu is its own /docker/<id>, so it makes no group there.
    mountinfo = tmp_path / "mountinfo"
    line = "1246 1245 0:29 {root} /sys/fs/cgroup/cpu rw,nosuid - cgroup cgroup rw,cpu\n"
    mountinfo.write_text(line.format(root="/docker/b94cff10"))
    assert not cgroups._sees_the_root(Path("/sys/fs/cgroup/cpu"), mountinfo)
    mountinfo.write_text(line.format(root="/"))
    assert cgroups._sees_the_root(Path("/sys/fs/cgroup/cpu"), mountinfo)
    assert cgroups._sees_the_root(tmp_path, mountinfo)  # no mount: a folder as it is
