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
The bot's user is the first argument, then optionally ``--zygote=MODULES`` (below), the
bot's program the rest.

**The zygote** (``--zygote=botkit,numpy``, a Python bot's container): a Python bot's
start is mostly its interpreter's (numpy's import alone costs about 0.2 s of CPU), paid
at every seating. So the supervisor starts, once per container, a zygote: this same
source run as ``python3 -c SOURCE --as-zygote UID ENTRY MODULES`` with the container's
environment, which imports MODULES and then only forks on request. Each seating's bot is
forked from it (its parent is then the zygote, not PID 1), and the child
gives itself the clean state above, becomes the bot's user, opens the seating's FIFOs
and only then runs ENTRY as ``__main__``, in a fresh interpreter state: its own
``sys.argv``, ``sys.path``, standard streams, environment and random state (``random``
and numpy's global generator reseeded from the kernel by the zygote just before the
fork, ``random`` again in the child by Python's hook). The zygote itself never imports
or runs anything of /bot (``/bot`` and the working folder are not on its path) and
never sees a deal. A child cannot reach it: the zygote is another user (the container's
root with the supervisor's capabilities), non-dumpable, and its control socket (an
anonymous socket pair with the supervisor) is closed in the child before it becomes the
bot's user. Between seatings the supervisor kills every process but the zygote (the
bot's user's, all at once, then any other), checked by PID and start time; a zygote
that died or does not answer is started again, and the seating meanwhile is exec'd as
without one. A seating whose environment changes a ``PYTHON*`` variable (read by the
interpreter at its start) is exec'd too.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import re
import resource
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
#: The zygote's process name (its /proc/PID/comm), and its children's, as an exec'd bot's.
ZYGOTE_NAME = b"zygote"
BOT_NAME = b"python3"
TMP = "/tmp"
SEAT = "/seat"
CODE = "/bot"
KILL_TIMEOUT_S = 5.0
UMASK = 0o022
#: ioprio_set's system call number by machine (no libc wrapper exists).
IOPRIO_SET = {"x86_64": 251, "aarch64": 30}
#: This machine's, found once, in the zygote too: looking it up in each forked bot
#: (``platform.machine()``, which builds and caches ``platform.uname()``) cost it 80 us.
IOPRIO_CALL = IOPRIO_SET.get(os.uname().machine)
IOPRIO_WHO_PROCESS = 1
LIBC = ctypes.CDLL(None, use_errno=True)
#: Looked up once, in the zygote too: a first lookup in each forked bot cost it 0.25 ms.
SYSCALL = LIBC.syscall
#: How long the zygote may take to import its modules, and to answer a spawn.
ZYGOTE_READY_S = 10.0
ZYGOTE_ANSWER_S = 5.0
#: The zygote's end of its control socket (the supervisor's is wherever it lands).
ZYGOTE_FD = 3
#: What a fresh Python interpreter sets up itself (the zygote's child does it by hand).
PYTHON_IGNORES = ("SIGPIPE", "SIGXFSZ")


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


def others(keep: frozenset[int] = frozenset()) -> list[int]:
    """The processes of the namespace but this one and ``keep``."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and e != "1" and int(e) not in keep]


def alone(keep: frozenset[int] = frozenset()) -> bool:
    """Whether no process but this one (and ``keep``: the zygote) is left."""
    return not others(keep)


def kill_all(keep: frozenset[int] = frozenset()) -> str:
    """Kill every process but this one and ``keep`` (the zygote). Without one to keep,
    ``kill(-1)``: no process can fork past that call. With one, each process is first
    stopped (a stopped process forks nothing, and a fork bomb at its process cap gets
    no new slot), pass after pass until no new one shows, then killed."""
    deadline = time.monotonic() + KILL_TIMEOUT_S
    while not alone(keep):
        if not keep:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)  # every process but ourselves (CAP_KILL)
        else:
            stopped: set[int] = set()
            while (found := set(others(keep))) - stopped and time.monotonic() < deadline:
                signal_each(found - stopped, signal.SIGSTOP)
                stopped |= found
            signal_each(stopped | set(others(keep)), signal.SIGKILL)
        if time.monotonic() > deadline:
            return "processes survive"
        time.sleep(0.001)
    return ""


def signal_each(pids: set[int], number: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, number)


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


def empty_tmp_as_bot(start: Start) -> str:
    """Empty /tmp (``empty_tmp``, as the bot's user), if the bot left anything there: the
    listing of /tmp itself (mode 1777) is ours to read."""
    return as_bot(start, empty_tmp) if os.listdir(TMP) else ""


def reset_tmp_times(start: Start) -> str:
    """Put /tmp's access and change times back to the container's start (its owner, this
    process, may set them; its ctime becomes the clean's, which no bot chooses)."""
    os.utime(TMP, ns=start.tmp_times)
    return ""


def clean(start: Start, zygote: Zygote | None = None) -> str:
    keep = zygote.keep() if zygote is not None else frozenset()
    try:
        return kill_all(keep) or empty_tmp_as_bot(start) or reset_tmp_times(start)
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


def default_signals_and_limits(start: Start, *, forked: bool = False) -> None:
    """Every signal at its default action and unblocked, and the bot's resource limits:
    what a bot and the zygote (which forks the bots) both start from. ``forked``: a
    child of the zygote, whose signals are a fresh interpreter's but for SIGCHLD
    (``zygote_signals``): only that one is put back (the 64 others cost it 0.45 ms)."""
    for number in (signal.SIGCHLD,) if forked else range(1, signal.NSIG):
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for number, limit in start.limits.items():
        resource.setrlimit(number, limit)


def reset(start: Start, *, forked: bool = False) -> None:
    """Give this (new) process the clean state every bot starts from (``forked``: see
    ``default_signals_and_limits``)."""
    default_signals_and_limits(start, forked=forked)
    os.setpriority(os.PRIO_PROCESS, 0, 0)
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    os.sched_setaffinity(0, start.cpus)
    if IOPRIO_CALL is not None and SYSCALL(IOPRIO_CALL, IOPRIO_WHO_PROCESS, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "ioprio_set")
    os.umask(UMASK)
    os.chdir(CODE)
    os.closerange(3, 1 << 16)
    os.setsid()
    become(start.bot_uid)


def spawn(
    start: Start,
    name: str,
    program: list[str],
    env_text: str = "",
    zygote: Zygote | None = None,
) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        return "bad seating name"
    env = seating_env(start.environ, env_text)
    if env is None:
        return "bad environment"
    keep = zygote.keep() if zygote is not None else frozenset()
    if not alone(keep) or os.listdir(TMP):
        return "not clean"
    if zygote is not None and zygote.serves(start.environ, env) and zygote.spawn(name, env):
        return ""
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


def process_start(pid: int) -> str:
    """The start time of process ``pid`` ("" if gone): with its PID, it names it for good."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def own_source() -> str:
    """This program's source: the argument after ``-c`` on PID 1's command line."""
    with open("/proc/self/cmdline", "rb") as cmdline:
        words = cmdline.read().split(b"\0")
    return words[words.index(b"-c") + 1].decode()


class Zygote:
    """The supervisor's handle on its zygote (module docstring): started at once, used
    by ``spawn`` once ready, started again when it is gone."""

    def __init__(self, start: Start, entry: str, modules: str) -> None:
        self.start = start
        self.entry = entry
        self.modules = modules
        self.source = own_source()
        self.pid = 0
        self.born = ""
        self.control: socket.socket | None = None
        self.ready = False
        self.launch()

    def launch(self) -> None:
        """Start the zygote (it says ``ready`` once its modules are imported)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            try:
                become_zygote(self.start, theirs.fileno())
                argv = ["python3", "-c", self.source, "--as-zygote"]
                argv += [str(self.start.bot_uid), self.entry, self.modules]
                os.execve("/usr/bin/python3", argv, self.start.environ)
            finally:
                os._exit(127)
        theirs.close()
        self.pid, self.born, self.control, self.ready = pid, process_start(pid), ours, False
        self.control.settimeout(ZYGOTE_READY_S)

    def alive(self) -> bool:
        return bool(self.pid) and bool(self.born) and process_start(self.pid) == self.born

    def keep(self) -> frozenset[int]:
        """What a clean spares: the zygote, if it is still the process started (its PID
        and start time), else nothing (and it is started again after the clean)."""
        return frozenset({self.pid}) if self.alive() else frozenset()

    def serves(self, base: dict[str, str], env: dict[str, str]) -> bool:
        """Whether a seating of ``env`` can come from it: the interpreter's own variables
        (``PYTHON*``, read at its start) are the container's."""
        changed = {k for k in {*base, *env} if base.get(k) != env.get(k)}
        return not any(key.startswith("PYTHON") for key in changed)

    def spawn(self, name: str, env: dict[str, str]) -> bool:
        """Ask for a bot on the FIFOs of /seat/NAME; False (the zygote ended, to be
        started again) if it is not there or does not answer as it should."""
        if not self.alive() or self.control is None:
            self.restart()
            return False
        try:
            if not self.ready:
                self.ready = self._read() == "ready"
                self.control.settimeout(ZYGOTE_ANSWER_S)
            if self.ready:
                request = json.dumps({"name": name, "env": env}, separators=(",", ":"))
                self.control.sendall(request.encode() + b"\n")
                if self._read() == "spawned":
                    return True
        except OSError:
            pass
        self.restart()
        return False

    def _read(self) -> str:
        assert self.control is not None
        line = b""
        while not line.endswith(b"\n"):
            data = self.control.recv(256)
            if not data or len(line) > 4096:
                return ""
            line += data
        return line.decode("ascii", "replace").strip()

    def restart(self) -> None:
        """End this zygote (if any) and start another; it is ready by a later seating."""
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self.pid = 0
        self.launch()


def become_zygote(start: Start, control: int) -> None:
    """The zygote's state before its exec: the clean state of a bot but its user (it
    stays the container's root, out of the bot's reach), in /, its control socket on
    ``ZYGOTE_FD``, /dev/null for its standard streams."""
    default_signals_and_limits(start)
    os.sched_setaffinity(0, start.cpus)
    os.umask(UMASK)
    os.chdir("/")
    os.dup2(control, ZYGOTE_FD)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(ZYGOTE_FD + 1, 1 << 16)
    os.setsid()


# The zygote's own side (``--as-zygote``): it runs with the container's environment and
# the image's site packages, never with /bot on its path.


def zygote_main(bot_uid: int, entry: str, modules: str) -> None:
    """Import ``modules``, say ready, then fork a bot per request until the supervisor
    goes; in a bot's process (a child), return into ``run_bot``."""
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    LIBC.prctl(PR_SET_NAME, ZYGOTE_NAME, 0, 0, 0)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # its children are reaped by the kernel
    start = Start(bot_uid)
    sys.path[:] = [p for p in sys.path if p not in ("", CODE)]
    path = list(sys.path)
    gc.disable()  # objects stay where they are: fewer pages copied in the children
    for module in filter(None, modules.split(",")):
        with contextlib.suppress(ImportError):
            __import__(module)
    zygote_signals()
    gc.freeze()
    control = socket.socket(fileno=ZYGOTE_FD)
    with control.makefile("rb") as requests:
        control.sendall(b"ready\n")
        for raw in requests:
            try:
                request = json.loads(raw)
                name, env = str(request["name"]), dict(request["env"])
            except (ValueError, KeyError, TypeError):
                control.sendall(b"failed bad request\n")
                continue
            reseed()  # the next child's own, drawn here (0.07 ms; 0.35 ms in the child)
            if fork_bot():
                control.sendall(b"spawned\n")
                continue
            requests.close()
            control.close()  # before it is the bot: nothing of the zygote's stays open
            run_bot(start, entry, name, env, path)
            return
    sys.exit(0)


def zygote_signals() -> None:
    """The zygote's signals as a fresh interpreter has them (every one at its default,
    SIGPIPE and SIGXFSZ ignored, SIGINT Python's handler), whatever its imports did, and
    SIGCHLD ignored: its children then need only SIGCHLD put back (``reset``)."""
    interpreter: dict[int, Any] = {getattr(signal, name): signal.SIG_IGN for name in PYTHON_IGNORES}
    interpreter[signal.SIGINT] = signal.default_int_handler
    interpreter[signal.SIGCHLD] = signal.SIG_IGN
    for number in range(1, signal.NSIG):
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(number, interpreter.get(number, signal.SIG_DFL))


def fork_bot() -> bool:
    """In the zygote, True after forking a bot; in the bot's process, False. Forked
    once: its parent is the zygote (another user, out of its reach), which the kernel
    reaps it for; forking twice, to give it PID 1 as its parent, cost 4 ms a seating."""
    return bool(os.fork())


def run_bot(start: Start, entry: str, name: str, env: dict[str, str], path: list[str]) -> None:
    """Give this new process the bot's clean state, become the bot, run ``/bot/ENTRY``
    as ``python3 ENTRY`` would, and end (``finish``)."""
    try:
        reset(start, forked=True)
        LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # as after an exec: its own user's process
        LIBC.prctl(PR_SET_NAME, BOT_NAME, 0, 0, 0)
        for name_ in PYTHON_IGNORES:
            signal.signal(getattr(signal, name_), signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        where = f"{SEAT}/{name}"
        for fd, fifo in enumerate(("in", "out", "err")):
            opened = os.open(f"{where}/{fifo}", os.O_RDONLY if fd == 0 else os.O_WRONLY)
            os.dup2(opened, fd)
            os.close(opened)
        fresh_streams()
        set_environ({**env, "PWD": CODE})  # PWD: what an exec'd bot's shell sets
        code, module = bot_module(entry)
        sys.argv[:] = [entry]
        sys.orig_argv[:] = ["python3", entry]
        sys.path[:] = [CODE, *path]
        sys.modules["__main__"] = module
        gc.enable()
    except BaseException:
        os._exit(127)
    try:
        exec(code, module.__dict__)
        status = 0
    except SystemExit as done:
        status = exit_status(done.code)
    except BaseException as error:  # as the interpreter prints it, without our frames
        import traceback

        trace = error.__traceback__
        traceback.print_exception(type(error), error, trace and trace.tb_next)
        status = 1
    finish(status)


def set_environ(wanted: dict[str, str]) -> None:
    """``os.environ`` (and the C library's) made exactly ``wanted``, changing only what
    differs: the zygote's is the container's, which a seating's mostly keeps (clearing
    and filling it again cost each bot 0.3 ms)."""
    for key in [key for key in os.environ if key not in wanted]:
        del os.environ[key]
    for key, value in wanted.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


def exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` ends an interpreter with (a text is printed)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def finish(status: int) -> None:
    """End as the interpreter ends a program: its other threads joined, its atexit
    handlers run, its output flushed; but not by tearing down every module and object
    the zygote gave it (that touches, so copies, every page of them: the most costly
    part of a forked bot's life)."""
    import atexit
    import threading

    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # what Py_Finalize calls
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    os._exit(status)


def fresh_streams() -> None:
    """New ``sys.stdin``/``stdout``/``stderr`` on descriptors 0-2, made as the
    interpreter made the zygote's (its encoding, errors and buffering)."""
    import io

    for name, fd, mode in (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w")):
        old = getattr(sys, name)
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = not isinstance(old.buffer, io.FileIO)
        kind = io.BufferedReader if mode == "r" else io.BufferedWriter
        stream = io.TextIOWrapper(
            kind(raw) if buffered else raw,
            encoding=old.encoding,
            errors=old.errors,
            newline="\n",
            line_buffering=old.line_buffering,
            write_through=old.write_through,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def reseed() -> None:
    """Random state of the bot's own: no two children of the zygote share a seed. The
    zygote draws it just before each fork (its warm pages make that cheap), so each
    child starts from a state of its own; ``random`` is also reseeded in every child
    by Python's own hook after a fork."""
    import random

    random.seed()
    numpy_random: Any = sys.modules.get("numpy.random")
    if numpy_random is not None:  # its global MT19937, from the kernel's entropy:
        key = sys.modules["numpy"].frombuffer(os.urandom(624 * 4), dtype="uint32")
        numpy_random.set_state(("MT19937", key, 624))  # 1.5 ms less than seed()


def bot_module(entry: str) -> tuple[Any, Any]:
    """The bot's code and its ``__main__`` module, as ``python3 ENTRY`` in /bot has them."""
    import builtins
    import importlib.machinery
    import types

    path = f"{CODE}/{entry}"
    with open(path, "rb") as source:
        code = compile(source.read(), path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(
        __file__=path,
        __cached__=None,
        __builtins__=builtins,
        __loader__=importlib.machinery.SourceFileLoader("__main__", path),
        __spec__=None,
        __package__=None,
    )
    return code, module


def main() -> None:
    if sys.argv[1] == "--as-zygote":
        zygote_main(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # No handler at all (Python's for SIGINT included): as the namespace's init, we then
    # receive no signal from the bot. SIGCHLD ignored: the kernel reaps every child.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    start = Start(int(sys.argv[1]))
    program = sys.argv[2:]
    zygote = None
    if program and program[0].startswith("--zygote="):
        modules = program.pop(0).partition("=")[2]
        if len(program) == 2 and program[0] == "python3" and "/" not in program[1]:
            zygote = Zygote(start, program[1], modules)
    control_in = os.open(f"{SEAT}/ctl-in", os.O_RDONLY)
    control_out = os.open(f"{SEAT}/ctl-out", os.O_WRONLY)
    os.write(control_out, b"hello\n")
    with os.fdopen(control_in, "rb", buffering=0) as commands:
        for raw in iter(commands.readline, b""):
            word, _, rest = raw.decode("ascii", "replace").strip().partition(" ")
            if word == "clean":
                problem, done = clean(start, zygote), "clean"
                if not problem and zygote is not None and not zygote.alive():
                    zygote.restart()  # it died (a bot's memory, say): ready by the next
            elif word == "spawn":
                name, _, env_text = rest.partition(" ")
                problem, done = spawn(start, name, program, env_text, zygote), "spawned"
            else:
                problem, done = "unknown command", ""
            answer = f"dirty {problem}" if problem else done
            os.write(control_out, answer.encode() + b"\n")
    kill_all()  # the worker went away: end the bot too (the container ends with us)


if __name__ == "__main__":
    main()
