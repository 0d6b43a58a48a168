"""The supervisor of a reused bot container: PID 1, it starts each seating's bot process
and, between seatings, kills every process and empties /tmp. Standard library only: it
is run inside the container as ``python3 -I -S -c SOURCE`` (the worker reads this file;
the bot's /bot is never involved), so nothing of it is importable by the bot.

Why the bot cannot touch it:

- it runs as another user (root of the container, with only CAP_SETUID, CAP_SETGID and
  CAP_KILL, no new privileges) than the bot (``nobody``), so the bot may not signal,
  ptrace, prlimit, renice, re-schedule, pin or re-prioritise its I/O: the kernel refuses
  every such call on another user's process;
- it is PID 1 of the container's PID namespace with no signal handler, so even a signal
  the bot could send would be dropped; and it is non-dumpable (no ptrace, /proc/1/mem,
  /proc/1/fd, /proc/1/environ);
- its control FIFOs are owned by it and unlinked by the worker once both ends are open.

Each bot process starts from a clean state, set explicitly before exec whatever the
supervisor's own may be: the resource limits the container started with, nice 0,
SCHED_OTHER, the CPU affinity the container started with, the default I/O priority,
umask 022, no supplementary groups, the environment the container started with (plus
the seating's), /bot as its folder, then the bot's user and group, so no capability is
left. /tmp is emptied by a helper running as the bot's user (folders the bot made
unreadable included), after every bot process is killed, and /tmp's times are put back
to the container's start.

Protocol, one line each way on the control FIFOs (fd ``CONTROL_IN``/``CONTROL_OUT``):
``hello`` (sent once, at start); ``clean`` -> ``clean`` | ``dirty REASON``: every other
process killed and gone, /tmp empty; ``spawn NAME`` -> ``spawned`` | ``dirty REASON``:
checks it is still alone with an empty /tmp, then starts the bot with its standard
streams on the FIFOs of /seat/NAME; ``spawn NAME ENV`` also gives it the variables of
ENV (a JSON object of strings, on top of the container's: a pooled container serves
matches whose seats differ in them). Orphans are reaped by the kernel (SIGCHLD ignored).
The bot's user is the first argument, the bot's program the rest.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import platform
import re
import resource
import signal
import sys
import time
from collections.abc import Callable

PR_SET_DUMPABLE = 4
TMP = "/tmp"
SEAT = "/seat"
CODE = "/bot"
KILL_TIMEOUT_S = 5.0
UMASK = 0o022
#: ioprio_set's system call number by machine (no libc wrapper exists).
IOPRIO_SET = {"x86_64": 251, "aarch64": 30}
IOPRIO_WHO_PROCESS = 1
LIBC = ctypes.CDLL(None, use_errno=True)


class Start:
    """What every bot process starts with, taken once when the container starts (the
    bot can change none of it afterwards: it is this process's, another user's)."""

    def __init__(self, bot_uid: int) -> None:
        self.bot_uid = bot_uid
        self.environ = dict(os.environ)
        self.limits = {
            number: resource.getrlimit(number)
            for name, number in vars(resource).items()
            if name.startswith("RLIMIT_") and isinstance(number, int)
        }
        self.cpus = os.sched_getaffinity(0)
        #: /tmp's times as the container made it, put back by every clean: a bot may set
        #: them (to "now", by writing there or by utime) and the next seating read them.
        stat = os.stat(TMP)
        self.tmp_times = (stat.st_atime_ns, stat.st_mtime_ns)


def alone() -> bool:
    """Whether no process but this one is left in the namespace."""
    return all(not entry.isdigit() or entry == "1" for entry in os.listdir("/proc"))


def kill_all() -> str:
    deadline = time.monotonic() + KILL_TIMEOUT_S
    while not alone():
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)  # every process but ourselves (CAP_KILL)
        if time.monotonic() > deadline:
            return "processes survive"
        time.sleep(0.001)
    return ""


def empty_tmp() -> str:
    """Delete everything under /tmp, folders depth first (nothing runs to refill it)."""
    pending = [TMP]
    while pending:
        top = pending[-1]
        folders = []
        with os.scandir(top) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    os.chmod(entry.path, 0o700)  # its owner, the bot's user: us
                    folders.append(entry.path)
                else:
                    os.unlink(entry.path)
        if folders:
            pending.extend(folders)
            continue
        if top != TMP:
            os.rmdir(top)
        pending.pop()
    return "" if not os.listdir(TMP) else "/tmp is not empty"


def as_bot(start: Start, job: Callable[[], str]) -> str:
    """Run ``job`` (returning a problem or "") in a child that became the bot's user:
    what the bot made, only its user may change. Called when no bot process is left."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # to collect this child's status
    try:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                become(start.bot_uid)
                code = 0 if not job() else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    return "" if os.waitstatus_to_exitcode(status) == 0 else "/tmp is not empty"


def reset_tmp_times(start: Start) -> str:
    """Put /tmp's access and change times back to the container's start (its owner, this
    process, may set them; its ctime becomes the clean's, which no bot chooses)."""
    os.utime(TMP, ns=start.tmp_times)
    return ""


def clean(start: Start) -> str:
    try:
        return kill_all() or as_bot(start, empty_tmp) or reset_tmp_times(start)
    except (OSError, RecursionError) as error:
        return f"{type(error).__name__}: {error}"


def seating_env(base: dict[str, str], text: str) -> dict[str, str] | None:
    """The container's environment with a seating's JSON object on top; None if bad."""
    if not text:
        return dict(base)
    try:
        extra = json.loads(text)
    except ValueError:
        return None
    if not isinstance(extra, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and "=" not in k and "\0" not in k + v
        for k, v in extra.items()
    ):
        return None
    return {**base, **extra}


def become(uid: int) -> None:
    """Become the bot's user and group for good (all capabilities go with uid 0)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def reset(start: Start) -> None:
    """Give this (new) process the clean state every bot starts from."""
    for number in range(1, signal.NSIG):
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for number, limit in start.limits.items():
        resource.setrlimit(number, limit)
    os.setpriority(os.PRIO_PROCESS, 0, 0)
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    os.sched_setaffinity(0, start.cpus)
    call = IOPRIO_SET.get(platform.machine())
    if call is not None and LIBC.syscall(call, IOPRIO_WHO_PROCESS, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "ioprio_set")
    os.umask(UMASK)
    os.chdir(CODE)
    os.closerange(3, 1 << 16)
    os.setsid()
    become(start.bot_uid)


def spawn(start: Start, name: str, program: list[str], env_text: str = "") -> str:
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        return "bad seating name"
    env = seating_env(start.environ, env_text)
    if env is None:
        return "bad environment"
    if not alone() or os.listdir(TMP):
        return "not clean"
    where = f"{SEAT}/{name}"
    quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in program)
    line = f"exec {quoted} <{where}/in >{where}/out 2>{where}/err"
    if os.fork() == 0:
        try:
            reset(start)
            os.execve("/bin/sh", ["/bin/sh", "-c", line], env)
        finally:
            os._exit(127)
    return ""


def main() -> None:
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # No handler at all (Python's for SIGINT included): as the namespace's init, we then
    # receive no signal from the bot. SIGCHLD ignored: the kernel reaps every child.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    start = Start(int(sys.argv[1]))
    program = sys.argv[2:]
    control_in = os.open(f"{SEAT}/ctl-in", os.O_RDONLY)
    control_out = os.open(f"{SEAT}/ctl-out", os.O_WRONLY)
    os.write(control_out, b"hello\n")
    with os.fdopen(control_in, "rb", buffering=0) as commands:
        for raw in iter(commands.readline, b""):
            word, _, rest = raw.decode("ascii", "replace").strip().partition(" ")
            if word == "clean":
                problem, done = clean(start), "clean"
            elif word == "spawn":
                name, _, env_text = rest.partition(" ")
                problem, done = spawn(start, name, program, env_text), "spawned"
            else:
                problem, done = "unknown command", ""
            answer = f"dirty {problem}" if problem else done
            os.write(control_out, answer.encode() + b"\n")
    kill_all()  # the worker went away: end the bot too (the container ends with us)


if __name__ == "__main__":
    main()
