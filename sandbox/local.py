"""The local-process backend: each bot is a child process with resource limits.

FOR DEVELOPMENT ONLY: THIS IS NOT A SECURITY BOUNDARY. The bot runs as the current user
with the same file system and network; rlimits cap its memory, CPU time, open files and
file size, and it gets its own process group (killed as a whole on close), but a hostile
program can still read your files or escape the group. Run untrusted code with the
Docker backend.

The channel reads the bot's standard output without blocking, keeping at most one line
(up to the cap) in memory, and drains its standard error into a capped buffer on a
thread, so a flood of output costs the bot its seat, never the referee's memory.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import os
import resource
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Final

from sandbox.channel import ChannelClosed, ChannelTimeout
from sandbox.limits import Limits
from sandbox.runtimes import PYTHON, BadBotCode, BotBuild, BuildFailed, Runtime, detect
from sandbox.streams import CHUNK, StreamChannel, poll_ms, write_all

_MB: Final = 1 << 20


class NotASandboxWarning(UserWarning):
    """The local backend was used: bots run unconfined, as the current user."""


WARNING: Final = (
    "the local backend runs bots as ordinary child processes of this user: it is NOT a "
    "security boundary; use it only for bots you trust (use the docker backend for others)"
)


def _limit_setter(limits: Limits, address_space: bool = True) -> Callable[[], None]:
    """The rlimits to apply in the child before it runs the bot.

    ``address_space`` off leaves out the memory cap (RLIMIT_AS), which kills a JVM or
    Node.js at start-up: such bots have no memory limit locally (Docker's is real).

    ``limits.pids`` is not applied: RLIMIT_NPROC counts every process of the user, not
    the bot's, so it would fail bots of a busy user and mean nothing for root.
    """
    caps = [
        *([(resource.RLIMIT_AS, limits.memory_mb * _MB)] if address_space else []),
        (resource.RLIMIT_CPU, max(1, int(limits.wall_clock_s))),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * _MB),
        (resource.RLIMIT_CORE, 0),
    ]

    def apply() -> None:  # runs between fork and exec: keep it to system calls
        for which, value in caps:
            _soft, hard = resource.getrlimit(which)
            capped = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (capped, capped))

    return apply


class _StderrDrain:
    """Reads a pipe on a daemon thread until it ends, keeping only the first ``cap`` bytes."""

    def __init__(self, pipe: IO[bytes], cap: int) -> None:
        self.pipe = pipe
        self.cap = cap
        self.kept = bytearray()
        self.dropped = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="bot-stderr", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        fd = self.pipe.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while not self.stop.is_set():
                if not selector.select(timeout=0.1):
                    continue
                try:
                    chunk = os.read(fd, CHUNK)
                except OSError:
                    return
                if not chunk:
                    return
                with self.lock:
                    room = max(0, self.cap - len(self.kept))
                    self.kept += chunk[:room]
                    self.dropped += len(chunk) - len(chunk[:room])

    def text(self) -> bytes:
        with self.lock:
            note = f"\n[... {self.dropped} more bytes dropped]".encode() if self.dropped else b""
            return bytes(self.kept) + note

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(timeout=1.0)
        with contextlib.suppress(OSError):
            self.pipe.close()


class LocalChannel(StreamChannel):
    """A ``sandbox.channel.Channel`` over a child process's pipes.

    The line handling, deadlines and close sequence are ``StreamChannel``'s, the same code
    as the Docker backend's pipes; this class adds the process: its exit status in
    ChannelClosed messages, and a close that kills its whole process group.
    """

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        limits: Limits,
        send_timeout_s: float,
        grace_s: float,
    ) -> None:
        assert process.stdin and process.stdout and process.stderr
        super().__init__(limits, self._kill_group, grace_s)
        self.process = process
        self._send_timeout_s = send_timeout_s
        self._stdin = process.stdin
        self._stdout_pipe = process.stdout
        self._in = process.stdin.fileno()
        self._out = process.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._poller = select.poll()
        self._poller.register(self._out, select.POLLIN)
        self._kill_after = math.inf  # set by close: when the process group is killed
        self._stderr = _StderrDrain(process.stderr, limits.stderr_bytes)
        self.cpu_clock = functools.partial(process_cpu_seconds, process.pid)

    def stderr(self) -> bytes:
        return self._stderr.text()

    def close(self) -> None:
        self._kill_after = time.monotonic() + self._grace_s
        super().close()

    # The transport (see sandbox.streams).

    def _fill(self, timeout: float) -> bool:
        # Standard error is drained by its own thread: only stdout is polled here.
        room = self._room()
        if self._ended or not room or not self._poller.poll(poll_ms(timeout)):
            return False
        try:
            data = os.read(self._out, room)
        except BlockingIOError:
            return False
        if data:
            self._stdout(data)
        else:
            self._ended = True
            self._poller.unregister(self._out)
        return bool(data)

    def _write(self, data: bytes, deadline: float) -> None:
        try:
            write_all(self._in, data, deadline)
        except ChannelTimeout:
            raise ChannelTimeout(
                f"the bot did not read its input for {self._send_timeout_s:g} s"
            ) from None
        except ChannelClosed:
            raise ChannelClosed(f"the bot stopped reading: {self._status()}") from None

    def _end_input(self) -> None:
        with contextlib.suppress(OSError):
            self._stdin.close()

    def _kill_group(self) -> None:
        """Let the bot exit until ``close``'s grace ends, then kill its process group."""
        pid = self.process.pid
        while time.monotonic() < self._kill_after and not _exited(pid):
            time.sleep(0.005)
        # The leader is not reaped yet, so the group id cannot have been reused.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5.0)

    def _release(self) -> None:
        with contextlib.suppress(OSError):
            self._stdin.close()
        with contextlib.suppress(OSError):
            self._stdout_pipe.close()
        self._stderr.finish()

    def _gone(self, message: str) -> str:
        return message if self._closed else self._status()

    def _status(self) -> str:
        """How the process stands, waiting briefly for an exit that is under way."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=0.2)
        code = self.process.returncode
        if code is None:
            return "still running with its standard output closed"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exited with status {code}"


#: /proc/PID/stat counts CPU time in these units.
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float | None:
    """CPU seconds of process ``pid``, its threads and the children it reaped (user and
    system: /proc/PID/stat's utime, stime, cutime, cstime, in ticks of 10 ms); None once
    it is gone. Children still running are not counted: the local backend is for
    development (docs/sandbox.md), the Docker one counts the container's every process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    try:
        return sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
    except (ValueError, IndexError):
        return None


def _exited(pid: int) -> bool:
    """Whether ``pid`` has exited, without reaping it."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


class LocalBackend:
    """Runs ``code/main.py`` with a Python interpreter as a limited child process.

    Not a security boundary (see the module docstring): it warns once when made.
    """

    name = "local"

    def __init__(
        self,
        python: str = sys.executable,
        *,
        send_timeout_s: float = 5.0,
        grace_s: float = 0.5,
    ) -> None:
        warnings.warn(WARNING, NotASandboxWarning, stacklevel=2)
        self.python = python
        self.send_timeout_s = send_timeout_s
        self.grace_s = grace_s

    def start(
        self,
        code: Path,
        *,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> LocalChannel:
        wanted = detect(Path(code))
        where = self._built(Path(code), wanted)
        runtime = wanted.runtime
        if runtime is PYTHON:
            program = [self.python, "-s", "main.py"]
        elif runtime.run[0].startswith("./"):  # the build's own program
            program = [str(where / runtime.run[0]), *runtime.run[1:]]
        else:
            program = [_tool(runtime.run[0], runtime), *runtime.run[1:]]
        process = subprocess.Popen(
            program,
            cwd=where,
            env=_bot_environment(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            # Only setrlimit calls between fork and exec.
            preexec_fn=_limit_setter(limits, not runtime.reserves_address_space),
            close_fds=True,
        )
        return LocalChannel(process, limits, self.send_timeout_s, self.grace_s)

    def build(self, code: Path, *, label: str = "build") -> Runtime:
        wanted = detect(Path(code))
        self._built(Path(code), wanted)
        return wanted.runtime

    def _built(self, code: Path, wanted: BotBuild) -> Path:
        """The folder to run the bot in: its own, or its build's (made once per content,
        with the host's toolchain, in a per-user folder of the temporary directory)."""
        runtime = wanted.runtime
        if not runtime.compiled:
            return code
        _tool(runtime.tool, runtime)
        digest = hashlib.sha256(repr((runtime.compile, wanted.flags)).encode())
        for path in sorted(p for p in code.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(code)).encode() + b"\0" + path.read_bytes())
        out = LOCAL_BUILDS / digest.hexdigest()
        if not out.is_dir():
            _compile(code, wanted, out)
        return out


LOCAL_BUILDS: Final = Path(tempfile.gettempdir()) / f"cardjudge-local-builds-{os.getuid()}"
#: A local build's wall clock and the compiler messages kept.
LOCAL_BUILD_S: Final = 120.0
LOCAL_LOG_BYTES: Final = 64 << 10


def _tool(name: str, runtime: Runtime) -> str:
    """The program ``name`` of the host, or BadBotCode: the toolchain is not installed."""
    found = shutil.which(name)
    if found is None:
        raise BadBotCode(
            f"{runtime.title} is not installed on this host ({name} is missing); "
            "use --sandbox docker, whose images have every toolchain"
        )
    return found


def _compile(code: Path, wanted: BotBuild, out: Path) -> None:
    """Build into a fresh folder beside ``out``, then move it in place (atomic)."""
    LOCAL_BUILDS.mkdir(mode=0o700, exist_ok=True)
    aside = Path(tempfile.mkdtemp(dir=LOCAL_BUILDS))
    line = wanted.runtime.compile_line(str(aside))
    try:
        result = subprocess.run(
            ["sh", "-c", line, "build", *wanted.flags],
            cwd=code,
            capture_output=True,
            timeout=LOCAL_BUILD_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        shutil.rmtree(aside, ignore_errors=True)
        raise BuildFailed(f"the build ran over its time limit ({LOCAL_BUILD_S:g} s)") from None
    log = (result.stdout + result.stderr)[:LOCAL_LOG_BYTES].decode("utf-8", "replace")
    if result.returncode != 0:
        shutil.rmtree(aside, ignore_errors=True)
        raise BuildFailed(f"the bot does not compile (exit status {result.returncode})", log)
    try:
        aside.rename(out)
    except OSError:  # another process built the same code first: keep theirs
        shutil.rmtree(aside, ignore_errors=True)


def _bot_environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """A small, fixed environment: nothing of the caller's secrets leaks by default."""
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return {**base, **(extra or {})}
