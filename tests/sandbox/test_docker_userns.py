"""A container's root is not the host's (issue 44): the engine remaps users
(``--userns-remap``, started so by scripts/bootstrap), so PID 1 of a bot container, the
container's root, is an unprivileged host user, and the bot's ``nobody`` another one.
Read from the host's side: ``/proc/<pid>/status`` of the container's processes, as the
host's kernel sees them. The worker gives the seat folders' FIFOs to those host users
(``sandbox.userns``), so every transport and lifecycle works (the rest of the suite)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest

from sandbox import userns
from sandbox.container_spec import BOT_UID
from sandbox.docker_backend import DockerBackend, SandboxError
from sandbox.limits import Limits
from sandbox.pipes import check_reachable, temporary_root
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

SAYS_READY = "import sys\nprint('ready', flush=True)\nfor line in sys.stdin:\n    pass\n"


def host_ids(pid: int) -> tuple[list[int], list[int]]:
    """The real, effective, saved and file-system uids and gids of a host process."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return [int(x) for x in fields["Uid"].split()], [int(x) for x in fields["Gid"].split()]


def children(pid: int) -> list[int]:
    return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, its children first."""
    found = children(pid)
    return found + [d for child in found for d in descendants(child)]


def remapped_backend() -> DockerBackend:
    backend = harness.pipe_backend()
    assert backend.ids.remapped, (
        "the Docker engine does not remap users (no --userns-remap): PID 1 of every bot "
        "container is the host's root. Stop it and run scripts/bootstrap (docs/deploy.md, "
        "'Users remapped')"
    )
    return backend


def host_pid_of_pid_1(label: str) -> int:
    (container_id,) = harness.containers_labelled(label)
    pid = int(harness.client().containers.get(container_id).attrs["State"]["Pid"])
    assert pid > 0
    return pid


def assert_unprivileged(pid: int, backend: DockerBackend, container_uid: int) -> None:
    """The host process runs as the host's uid of ``container_uid`` in the engine's
    range, never as root, with every one of its uids and gids."""
    uids, gids = host_ids(pid)
    assert uids == [backend.ids.host_uid(container_uid)] * 4
    assert gids == [backend.ids.host_gid(container_uid)] * 4
    assert min(uids + gids) >= userns.RANGE_NEEDED  # above every ordinary host user


@pytest.mark.parametrize("lifecycle", ["fresh", "pooled"])
def test_pid_1_of_a_bot_container_is_an_unprivileged_host_user(
    tmp_path: Path, lifecycle: str
) -> None:
    backend = remapped_backend()
    code = harness.source_folder(tmp_path, "bot", SAYS_READY)
    label = harness.label(f"userns-{lifecycle}")
    seat = (
        backend.start_reused(code, label=label, limits=Limits()) if lifecycle != "fresh" else None
    )
    channel = backend.start(code, label=label, limits=Limits()) if seat is None else seat.spawn()
    try:
        assert channel.recv(time.monotonic() + 60) == b"ready"
        pid_1 = host_pid_of_pid_1(label)
        assert_unprivileged(pid_1, backend, 0)  # the container's root
        family = descendants(pid_1)  # a pooled bot is the zygote's child (issue 45)
        zygotes = [p for p in family if Path(f"/proc/{p}/comm").read_text().strip() == "zygote"]
        for zygote in zygotes:
            assert_unprivileged(zygote, backend, 0)  # the container's root, too
        (bot,) = [p for p in family if p not in zygotes]
        assert_unprivileged(bot, backend, BOT_UID)  # the bot's nobody
    finally:
        channel.close()
        if seat is not None:
            seat.close()
            seat.wait_removed(60)
    assert harness.containers_labelled(label) == []


def test_the_remap_is_read_from_the_engine() -> None:
    info = harness.client().info()
    ids = userns.from_engine_info(info)
    assert ids == remapped_backend().ids
    assert info["DockerRootDir"].endswith(f"/{ids.uid}.{ids.gid}")
    assert userns.from_engine_info({"SecurityOptions": ["name=seccomp,profile=default"]}) == (
        userns.NONE
    )
    with pytest.raises(ValueError, match=r"UID\.GID"):
        userns.from_engine_info({"SecurityOptions": ["name=userns"], "DockerRootDir": "/x"})


def test_a_pipe_root_the_remapped_users_cannot_reach_is_refused() -> None:
    private = Path(tempfile.mkdtemp(prefix="cardjudge-userns-"))  # 0700, as mkdtemp makes
    try:
        with pytest.raises(ValueError, match="chmod o\\+x"):
            check_reachable(private / "pipes")
        remapped_backend()
        with pytest.raises(SandboxError, match="not reachable by the engine's remapped users"):
            DockerBackend(pipe_root=private / "pipes", client=harness.client(), clean=False)
        private.chmod(0o711)
        check_reachable(private / "pipes")
        temporary = temporary_root("cardjudge-userns-")  # made searchable for them
        check_reachable(temporary)
        temporary.rmdir()
    finally:
        shutil.rmtree(private)
