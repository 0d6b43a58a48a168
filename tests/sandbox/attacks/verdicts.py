"""What each probing attack must find, checked alike at the channel and through the
referee: every door it tried was shut."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping
from typing import Any

from sandbox.limits import Limits

Report = dict[str, Any]
Check = Callable[[Report, Limits, Mapping[str, str]], None]
REFUSED = {"PermissionError", "OSError", "FileNotFoundError"}


def fork_bomb(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found["forks"] < limits.pids
    assert found["refused"] == os.strerror(errno.EAGAIN)


def network(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found["interfaces"] == ["lo"]
    assert found["routes"] == []
    assert found["redis"] == found["postgres"] == "ConnectionRefusedError"
    assert found["docker_socket"] is False
    assert found["dns"] == "gaierror"


def read_host(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found["found"] == []
    assert found["tried"] == {
        env["HOST_MARKER"]: "FileNotFoundError",
        "/etc/shadow": "PermissionError",
        "/proc/1/root/etc/shadow": "PermissionError",
        "/var/lib/docker": "FileNotFoundError",
        "/var/run/docker.sock": "FileNotFoundError",
        env["REPO"]: "FileNotFoundError",
    }


def write_outside_tmp(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    written = dict(found)
    assert written.pop("/tmp/x") == "written"
    assert written.pop("/dev/shm/x") == "FileNotFoundError"  # no shared memory at all
    assert set(written.values()) <= REFUSED, written


def fill_tmp(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found["first_file_mb"] == limits.file_size_mb
    assert found["first_file_error"] == f"OSError {errno.EFBIG}"
    assert found["last_error"] == errno.ENOSPC
    assert found["total_mb"] <= limits.tmp_mb


def exhaust_fds(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found["opened"] < limits.open_files
    assert found["refused"] == f"OSError {errno.EMFILE}"


def read_proc(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert set(found["processes"].values()) <= {"docker-init", "python3"}, found["processes"]
    assert found["processes"]["1"] == "docker-init"
    assert set(found["touched"].values()) <= REFUSED, found["touched"]


def signals(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found["ppid"] == 1
    assert found["host"] == "ProcessLookupError"
    assert found["pid1_alive"] is True


def zombies(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found == {"orphan_zombies": 0, "own_zombies": 3}


def privilege(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    refused = {os.strerror(errno.EPERM), os.strerror(errno.ENOSYS)}
    for call in ("setuid", "unshare_user", "unshare_mount", "mount", "keyctl", "chroot"):
        assert found[call] in refused, (call, found[call])
    assert found["Uid"].split() == found["Gid"].split() == ["65534"] * 4
    assert found["Groups"] in ("", "65534")  # none beyond its own group
    caps = ("CapEff", "CapPrm", "CapInh", "CapAmb")
    assert [int(found[key], 16) for key in caps] == [0, 0, 0, 0]
    assert found["NoNewPrivs"] == "1"
    assert found["Seccomp"] == "2"
    if found["setuid_programs"]:
        assert found["mount_program"] != 0


def io_uring(found: Report, limits: Limits, env: Mapping[str, str]) -> None:
    assert found["fd"] == -1
    assert found["errno"] == errno.EPERM


CHECKS: dict[str, Check] = {
    "fork_bomb": fork_bomb,
    "network": network,
    "read_host": read_host,
    "write_outside_tmp": write_outside_tmp,
    "fill_tmp": fill_tmp,
    "exhaust_fds": exhaust_fds,
    "read_proc": read_proc,
    "signals": signals,
    "zombies": zombies,
    "privilege": privilege,
    "io_uring": io_uring,
}
