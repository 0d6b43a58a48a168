"""The supervisor of a reused bot container: PID 1, it starts each seating's bot process
and, between seatings, kills every process and empties /tmp. Standard library only: it
is run inside the container as ``python3 -I -S -c SOURCE`` (the worker reads this file;
the bot's /bot is never involved), so nothing of it is importable by the bot.

Why the bot cannot touch it, though both run as ``nobody``:

- it is PID 1 of the container's PID namespace, and the kernel delivers no signal from
  inside the namespace to its init unless the init installed a handler: it installs
  none, so even SIGKILL and SIGSTOP from the bot are dropped;
- it makes itself non-dumpable before anything else runs, so no process of the same user
  may ptrace it, read or write its memory (/proc/1/mem) or open its descriptors
  (/proc/1/fd);
- its control FIFOs are unlinked by the worker once both ends are open, so nothing
  else can open them again (and /proc/1/fd is closed to the bot, above).

Protocol, one line each way on the control FIFOs (fd ``CONTROL_IN``/``CONTROL_OUT``):
``hello`` (sent once, at start); ``clean`` -> ``clean`` | ``dirty REASON``: every other
process killed and gone, /tmp empty; ``spawn NAME`` -> ``spawned`` | ``dirty REASON``:
checks it is still alone with an empty /tmp, then starts the bot with its standard
streams on the FIFOs of /seat/NAME; ``spawn NAME ENV`` also gives it the variables of
ENV (a JSON object of strings, on top of the container's: a pooled container serves
matches whose seats differ in them). Orphans are reaped by the kernel (SIGCHLD ignored).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import sys
import time

PR_SET_DUMPABLE = 4
TMP = "/tmp"
SEAT = "/seat"
KILL_TIMEOUT_S = 5.0


def alone() -> bool:
    """Whether no process but this one is left in the namespace."""
    return all(not entry.isdigit() or entry == "1" for entry in os.listdir("/proc"))


def kill_all() -> str:
    deadline = time.monotonic() + KILL_TIMEOUT_S
    while not alone():
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)  # every process we may signal but ourselves
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


def clean() -> str:
    try:
        return kill_all() or empty_tmp()
    except (OSError, RecursionError) as error:
        return f"{type(error).__name__}: {error}"


def seating_env(text: str) -> dict[str, str] | None:
    """The container's environment with a seating's JSON object on top; None if bad."""
    if not text:
        return dict(os.environ)
    try:
        extra = json.loads(text)
    except ValueError:
        return None
    if not isinstance(extra, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and "=" not in k and "\0" not in k + v
        for k, v in extra.items()
    ):
        return None
    return {**os.environ, **extra}


def spawn(name: str, program: list[str], env_text: str = "") -> str:
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        return "bad seating name"
    env = seating_env(env_text)
    if env is None:
        return "bad environment"
    if not alone() or os.listdir(TMP):
        return "not clean"
    where = f"{SEAT}/{name}"
    quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in program)
    line = f"exec {quoted} <{where}/in >{where}/out 2>{where}/err"
    if os.fork() == 0:
        try:
            for number in range(1, signal.NSIG):
                if number not in (signal.SIGKILL, signal.SIGSTOP):
                    with contextlib.suppress(OSError, ValueError):
                        signal.signal(number, signal.SIG_DFL)
            os.closerange(3, 1 << 16)
            os.setsid()
            os.execve("/bin/sh", ["/bin/sh", "-c", line], env)
        finally:
            os._exit(127)
    return ""


def main() -> None:
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # No handler at all (Python's for SIGINT included): as the namespace's init, we then
    # receive no signal from the bot. SIGCHLD ignored: the kernel reaps every child.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    program = sys.argv[1:]
    control_in = os.open(f"{SEAT}/ctl-in", os.O_RDONLY)
    control_out = os.open(f"{SEAT}/ctl-out", os.O_WRONLY)
    os.write(control_out, b"hello\n")
    with os.fdopen(control_in, "rb", buffering=0) as commands:
        for raw in iter(commands.readline, b""):
            word, _, rest = raw.decode("ascii", "replace").strip().partition(" ")
            if word == "clean":
                problem, done = clean(), "clean"
            elif word == "spawn":
                name, _, env_text = rest.partition(" ")
                problem, done = spawn(name, program, env_text), "spawned"
            else:
                problem, done = "unknown command", ""
            answer = f"dirty {problem}" if problem else done
            os.write(control_out, answer.encode() + b"\n")
    kill_all()  # the worker went away: end the bot too (the container ends with us)


if __name__ == "__main__":
    main()
