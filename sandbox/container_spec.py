"""What every container of the sandbox looks like, as data: the hardening and the labels.

No engine call here (sandbox.docker_backend makes the calls); this is the page to read for
what a bot's container may do: no network, a read-only root, every capability dropped but
those PID 1 needs to become the bot's user, no new privileges, the seccomp profile, no IPC
namespace, no log driver, the caps of ``Limits``; and the labels that find a container
again (its match and seat, the worker process that made it, its expiry).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from docker.types import LogConfig, Ulimit

from sandbox import seccomp
from sandbox.runtimes import Runtime

#: The user every bot runs as: nobody:nogroup.
BOT_UID: Final = 65534
#: The user a bot container starts as (root of the container with only the capabilities
#: of ``START_CAPS``): its PID 1, out of the bot's reach, then becomes ``BOT_UID`` for
#: the bot (``BECOME_BOT``, or the supervisor of a reused container).
START_USER: Final = "0:0"
#: What PID 1 may do: become the bot's user (and, the supervisor, kill its processes).
START_CAPS: Final = ("SETUID", "SETGID")
SUPERVISOR_CAPS: Final = (*START_CAPS, "KILL")
#: The bot's program, run as the bot's user and group, no supplementary group, no
#: capability (util-linux's setpriv, in every runtime image).
BECOME_BOT: Final = (
    "setpriv",
    f"--reuid={BOT_UID}",
    f"--regid={BOT_UID}",
    "--clear-groups",
    "--inh-caps=-all",
    "--",
)
#: Where the bot's code lives in the container.
CODE_DIR: Final = "/bot"
#: The supervisor of reused containers (run from its source, never from /bot).
SUPERVISOR: Final = Path(__file__).with_name("supervisor.py")
LABEL: Final = "cardjudge.sandbox"  # on every container this module makes
MATCH_LABEL: Final = "cardjudge.match"  # the match and seat, as given to start()
OWNER_LABEL: Final = "cardjudge.owner"  # host:pid:start-time of the worker process
EXPIRES_LABEL: Final = "cardjudge.expires"  # Unix time after which it is surely stale
SEAT_LABEL: Final = "cardjudge.seat"  # the seat's pipe folder, if any
CGROUP_LABEL: Final = "cardjudge.cgroup"  # its cgroup parent (its worker's), if any
#: On a runtime image whose python3 can run the supervisor (scripts/build-runtime-images).
SUPERVISOR_LABEL: Final = "cardjudge.supervisor"


def reused_settings(
    settings: dict[str, Any], runtime: Runtime, *, zygote: tuple[str, ...] = ()
) -> dict[str, Any]:
    """What a reused container changes in a bot container's settings (``sandbox.reuse``):
    the supervisor is PID 1 (in place of docker-init; it may also kill the bot's
    processes) and runs the bot as ``BOT_UID`` on each seating's FIFOs; what would outlive
    a seating's processes is closed (SysV IPC and POSIX message queues cannot be made; IP
    sockets, whose network counters persist, are refused; the cgroup's counters are
    hidden under an empty /sys/fs/cgroup). ``zygote``: the modules of a zygote the bots are
    forked from (``Runtime.zygote_modules``); (): none, each bot is exec'd."""
    source = SUPERVISOR.read_text()
    forked = [f"--zygote={','.join(zygote)}"] if zygote else []
    return {
        **settings,
        "init": False,
        "cap_add": list(SUPERVISOR_CAPS),
        "command": ["python3", "-I", "-S", "-c", source, str(BOT_UID), *forked, *runtime.run],
        "sysctls": {
            "kernel.shmmni": "0",
            "kernel.msgmni": "0",
            "kernel.sem": "0 0 0 0",
            "fs.mqueue.queues_max": "0",
        },
        "security_opt": ["no-new-privileges:true", f"seccomp={seccomp.unix_sockets_only_text()}"],
        "tmpfs": {**settings["tmpfs"], "/sys/fs/cgroup": "ro,nosuid,nodev,noexec,size=4k,mode=555"},
    }


def container_labels(
    label: str, wall_clock_s: float, cgroup_parent: str | None = None
) -> dict[str, str]:
    """What finds a container again: ours, its match and seat, its worker, its expiry,
    and its cgroup (to kill its processes through it when found in a listing)."""
    return {
        LABEL: "1",
        MATCH_LABEL: label,
        OWNER_LABEL: owner_id(),
        EXPIRES_LABEL: str(int(time.time() + wall_clock_s + 60)),
        **({CGROUP_LABEL: cgroup_parent} if cgroup_parent else {}),
    }


def ulimits(open_files: int, file_bytes: int) -> list[Ulimit]:
    return [
        Ulimit(name="nofile", soft=open_files, hard=open_files),
        Ulimit(name="fsize", soft=file_bytes, hard=file_bytes),
        Ulimit(name="core", soft=0, hard=0),
    ]


def hardened(memory_mb: int, cpus: float, pids: int, cgroup_parent: str | None) -> dict[str, Any]:
    """The settings every container of the sandbox has, bot or build (module docstring)."""
    mib = 1 << 20
    placed = {"cgroup_parent": cgroup_parent} if cgroup_parent else {}
    return {
        **placed,
        "user": f"{BOT_UID}:{BOT_UID}",
        "working_dir": CODE_DIR,
        "hostname": "bot",
        "network_mode": "none",
        "network_disabled": True,
        "read_only": True,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges:true", f"seccomp={seccomp.profile_text()}"],
        "init": True,
        "ipc_mode": "none",
        "mem_limit": memory_mb * mib,
        "memswap_limit": memory_mb * mib,
        # Its own CPU quota (nano_cpus: a CFS quota over the period) and its own weight
        # among its siblings, in proportion: spinners use their container's share only.
        "nano_cpus": int(cpus * 1e9),
        "cpu_shares": max(2, int(cpus * 1024)),
        "pids_limit": pids,
        "oom_score_adj": 1000,
        "log_config": LogConfig(type=LogConfig.types.NONE),
    }


def checked_env(env: Mapping[str, str]) -> dict[str, str]:
    for key, value in env.items():
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"bad environment variable for a bot: {key!r}={value!r}")
    return dict(env)


def owner_id(pid: int | None = None) -> str:
    """This worker process, unambiguously on this host: host name, PID, start time."""
    pid = pid or os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_time(pid)}"


def _start_time(pid: int) -> str:
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat_line.rsplit(")", 1)[1].split()[19]


def owner_alive(owner: str) -> bool:
    host, _, rest = owner.partition(":")
    pid_text, _, started = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return True  # another machine's worker: only its expiry says it is stale
    return bool(started) and _start_time(int(pid_text)) == started
