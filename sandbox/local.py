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
import os
import resource
import selectors
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Final

from sandbox.channel import ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits

#: How much of a too-long line the LineTooLong error carries.
HEAD_BYTES: Final = 256
_CHUNK: Final = 1 << 16
_MB: Final = 1 << 20


class NotASandboxWarning(UserWarning):
    """The local backend was used: bots run unconfined, as the current user."""


WARNING: Final = (
    "the local backend runs bots as ordinary child processes of this user: it is NOT a "
    "security boundary; use it only for bots you trust (use the docker backend for others)"
)


def _limit_setter(limits: Limits) -> Callable[[], None]:
    """The rlimits to apply in the child before it runs the bot.

    ``limits.pids`` is not applied: RLIMIT_NPROC counts every process of the user, not
    the bot's, so it would fail bots of a busy user and mean nothing for root.
    """
    caps = [
        (resource.RLIMIT_AS, limits.memory_mb * _MB),
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
                    chunk = os.read(fd, _CHUNK)
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


class LocalChannel:
    """A ``sandbox.channel.Channel`` over a child process's pipes."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        limits: Limits,
        send_timeout_s: float,
        grace_s: float,
    ) -> None:
        assert process.stdin and process.stdout and process.stderr
        self.process = process
        self.line_cap = limits.line_bytes
        self.send_timeout_s = send_timeout_s
        self.grace_s = grace_s
        self._in = process.stdin
        self._out = process.stdout
        os.set_blocking(self._in.fileno(), False)
        os.set_blocking(self._out.fileno(), False)
        self._buffer = bytearray()
        self._eof = False
        self._closed = False
        self._stderr = _StderrDrain(process.stderr, limits.stderr_bytes)

    # Sending.

    def send(self, line: bytes) -> None:
        if self._closed:
            raise ChannelClosed("the channel is closed")
        data = memoryview(line + b"\n")
        deadline = time.monotonic() + self.send_timeout_s
        with selectors.DefaultSelector() as selector:
            selector.register(self._in.fileno(), selectors.EVENT_WRITE)
            while data:
                try:
                    data = data[os.write(self._in.fileno(), data) :]
                    continue
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    raise ChannelClosed(f"the bot stopped reading: {self._status()}") from None
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(timeout=left):
                    raise ChannelTimeout(
                        f"the bot did not read its input for {self.send_timeout_s:g} s"
                    )

    # Receiving.

    def recv(self, deadline: float) -> bytes:
        if self._closed:
            raise ChannelClosed("the channel is closed")
        with selectors.DefaultSelector() as selector:
            selector.register(self._out.fileno(), selectors.EVENT_READ)
            while True:
                line = self._take_line()
                if line is not None:
                    return line
                if self._eof:
                    raise ChannelClosed(self._status())
                left = deadline - time.monotonic()
                # Look at least once, even past the deadline: a line may be waiting unread.
                if selector.select(timeout=max(left, 0.0)):
                    self._read_some()
                elif left <= 0:
                    raise ChannelTimeout("no complete line before the deadline")

    def _take_line(self) -> bytes | None:
        end = self._buffer.find(b"\n")
        too_long = end > self.line_cap or (end < 0 and len(self._buffer) > self.line_cap)
        if too_long:
            head = bytes(self._buffer[:HEAD_BYTES])
            self._buffer.clear()
            self._eof = True  # the stream is out of step; nothing more is read from it
            raise LineTooLong(f"the bot wrote a line over {self.line_cap} bytes", head)
        if end < 0:
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    def _read_some(self) -> None:
        room = self.line_cap + 1 - len(self._buffer)  # never hold more than one line
        try:
            chunk = os.read(self._out.fileno(), max(1, min(_CHUNK, room)))
        except BlockingIOError:
            return
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True

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

    # The rest.

    def stderr(self) -> bytes:
        return self._stderr.text()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self._in.close()
        pid = self.process.pid
        deadline = time.monotonic() + self.grace_s
        while time.monotonic() < deadline and not _exited(pid):
            time.sleep(0.005)
        # The leader is not reaped yet, so the group id cannot have been reused.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5.0)
        with contextlib.suppress(OSError):
            self._out.close()
        self._stderr.finish()


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
        main = Path(code) / "main.py"
        if not main.is_file():
            raise FileNotFoundError(f"bot {label}: {main} does not exist; a bot needs main.py")
        process = subprocess.Popen(
            [self.python, "-s", "main.py"],
            cwd=code,
            env=_bot_environment(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=_limit_setter(limits),  # only setrlimit calls between fork and exec
            close_fds=True,
        )
        return LocalChannel(process, limits, self.send_timeout_s, self.grace_s)


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
