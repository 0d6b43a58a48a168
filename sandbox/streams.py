"""The line channel over non-blocking file descriptors, shared by the sandbox transports.

A transport (named pipes, the Docker attach socket) supplies: ``_fill`` (wait up to a
timeout, then hand whatever the bot wrote to ``_stdout`` and the stderr log), ``_write``
(push bytes to the bot before a deadline), ``_end_input`` (the bot reads end-of-file)
and ``_release`` (free its descriptors). Everything else (deadlines, the line cap, the
stderr cap, a close that never hangs and runs once) lives here, so every transport
behaves the same.

Memory stays bounded whoever calls what: the line buffer holds at most ``line_bytes + 1``
bytes; a transport that can read only as much stdout as fits (a pipe: ``_room``) leaves
the rest in the pipe, and one that cannot (the attach socket multiplexes stdout with
stderr) has its surplus kept aside, at most one read's worth, and is not read again until
lines are taken.

A round trip is the hot path of every game, so ``send`` is one ``write`` when the bot's
input has room, and ``recv`` one ``poll`` and one ``read`` when the line comes whole;
nothing else is allocated or asked of the kernel on the way.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import threading
import time
from collections.abc import Callable

from sandbox.buffers import CappedLog, LineSplitter
from sandbox.channel import ChannelClosed, ChannelTimeout
from sandbox.limits import Limits

log = logging.getLogger(__name__)

#: Bytes read from a descriptor at a time (a pipe's default capacity).
CHUNK = 1 << 16
#: What ChannelClosed says of a bot whose output ended (the referee's fault text puts it
#: in "the bot's output ended (...)", so it does not say that again).
GONE = "it exited or closed its standard output"


class StreamChannel:
    """A ``sandbox.channel.Channel`` over descriptors; see the module docstring."""

    def __init__(self, limits: Limits, stop: Callable[[], None], grace_s: float) -> None:
        self._grace_s = grace_s
        self._lines = LineSplitter(limits.line_bytes)
        self._spill = bytearray()  # stdout read beyond the line buffer's room (attach only)
        self._log = CappedLog(limits.stderr_bytes)
        self._send_timeout_s = limits.send_timeout_s
        self._stop = stop
        self._ended = False  # the bot's standard output ended
        self._closed = False
        self._close_lock = threading.Lock()
        #: Held while waiting on the bot's descriptors: ``close`` from another thread (a
        #: stop signal) must not poll them at the same time, nor close them under a wait.
        self._io = threading.Lock()
        self._released = False
        self._stopped = False
        #: Reads the CPU seconds of the bot's processes (its container's cgroup), set by
        #: the backend that knows where they are counted; None: not counted.
        self.cpu_clock: Callable[[], float | None] | None = None

    def send(self, line: bytes) -> None:
        if self._closed or self._ended:
            raise ChannelClosed(self._gone(GONE))
        with self._io:
            if self._released:
                raise ChannelClosed("the channel was closed")
            self._write(line + b"\n", time.monotonic() + self._send_timeout_s)

    def recv(self, deadline: float) -> bytes:
        lines = self._lines
        if self._spill:
            self._take_spill()
        line = lines.next_line()  # a line already here counts, whatever the deadline
        late = False
        while line is None:
            if self._closed:
                break
            if self._ended:
                raise ChannelClosed(self._gone(GONE))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if late:
                    raise ChannelTimeout("no complete line from the bot before the deadline")
                late = True  # past the deadline, what had already arrived still counts
                remaining = 0
            self._wait(remaining)
            if self._spill:
                self._take_spill()
            line = lines.next_line()
        if self._closed or line is None:
            raise ChannelClosed("the channel was closed")
        return line

    def cpu_seconds(self) -> float | None:
        """The bot's CPU seconds so far (``judge.bot_clock`` times it by them); None when
        they are not counted or cannot be read."""
        return self.cpu_clock() if self.cpu_clock is not None else None

    def stderr(self) -> bytes:
        if not self._closed and not self._spill:  # spill: stdout waits for recv first
            with contextlib.suppress(ChannelClosed):
                self._wait(0)
        return self._log.getvalue()

    def held(self) -> int:
        """Bytes of the bot's output held unread: at most ``line_bytes + 1``, plus, for a
        transport that cannot read stdout alone, one read's worth (``CHUNK``)."""
        return len(self._lines) + len(self._spill)

    def close(self) -> None:
        """End the bot's input, let it finish for ``grace_s`` (keeping its last words on
        standard error, dropping its output), then remove it.

        Called from another thread while one waits on the bot (a stop signal during a
        long move), it removes the bot first, without its last words: that ends the
        wait at once (its output ends), and only then are the descriptors closed.
        """
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._spill.clear()
        if not self._io.acquire(blocking=False):
            self._stop_once()
            self._io.acquire()
        try:
            if not self._stopped:
                self._last_words()
            self._stop_once()
        finally:
            self._released = True
            self._release()
            self._io.release()
            closer = getattr(self.cpu_clock, "close", None)
            if closer is not None:  # a kept descriptor of the counter (sandbox.cgroups)
                closer()

    def _last_words(self) -> None:
        """End the bot's input and read its standard error for up to ``grace_s``."""
        try:
            with contextlib.suppress(OSError):
                self._end_input()
                deadline = time.monotonic() + self._grace_s
                while (remaining := deadline - time.monotonic()) > 0:
                    read = self._fill(0 if self._ended else remaining)
                    if self._ended and not read:
                        break
        except Exception:  # close must not raise
            log.exception("reading a bot's last words failed")

    def _wait(self, timeout: float) -> bool:
        """``_fill`` under the descriptors' lock; ChannelClosed once they are closed."""
        with self._io:
            if self._released:
                raise ChannelClosed("the channel was closed")
            return self._fill(timeout)

    def _stop_once(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self._stop()
        except Exception:  # close must not raise: leftovers are removed later
            log.exception("stopping a bot failed; remove_leftovers() will clean up")

    def _room(self) -> int:
        """How much of the bot's stdout to read now: what the line buffer takes (0 when
        full: lines must be taken first), or a whole chunk to drop once closing."""
        if self._closed:
            return CHUNK
        if self._spill:
            return 0
        room = self._lines.room()
        return room if room < CHUNK else CHUNK

    def _stdout(self, data: bytes) -> None:
        """Output of the bot: kept for recv (what does not fit waits aside), or dropped
        once the channel is closing."""
        if self._closed:
            return
        if self._spill:
            self._spill += data
            return
        taken = self._lines.feed(data)
        if taken < len(data):
            self._spill += data[taken:]

    def _take_spill(self) -> None:
        del self._spill[: self._lines.feed(self._spill)]

    def _gone(self, message: str) -> str:
        """What ChannelClosed says once the bot is gone; a transport that can tell how
        the bot ended (an exit status) says that instead."""
        return message

    # What a transport supplies.
    def _fill(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the bot's output; whether anything was read."""
        raise NotImplementedError

    def _write(self, data: bytes, deadline: float) -> None:
        """Write all of ``data`` to the bot before ``deadline``."""
        raise NotImplementedError

    def _end_input(self) -> None:
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError


def poll_ms(timeout: float) -> int:
    """``timeout`` in seconds as poll()'s milliseconds, rounded up (never waking early)."""
    return math.ceil(timeout * 1000) if timeout > 0 else 0


def wait_for(fd: int, events: int, deadline: float) -> bool:
    """Whether ``fd`` is ready for ``events`` (select.POLL*) before ``deadline``."""
    poller = select.poll()
    poller.register(fd, events)
    return bool(poller.poll(poll_ms(deadline - time.monotonic())))


def write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write all of ``data`` to the non-blocking ``fd`` before ``deadline``.

    Usually one ``write``; it waits only while the bot's input is full. Raises
    ChannelTimeout when the bot stops reading (its input stays full), and ChannelClosed
    when nobody can read it any more.
    """
    try:
        written = os.write(fd, data)
    except BlockingIOError:
        written = 0
    except (BrokenPipeError, ConnectionError) as error:
        raise ChannelClosed(f"the bot's input is closed ({error})") from error
    if written == len(data):
        return
    view = memoryview(data)[written:]
    while view:
        if not wait_for(fd, select.POLLOUT, deadline):
            raise ChannelTimeout("the bot has not read its input in time (its input is full)")
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionError) as error:
            raise ChannelClosed(f"the bot's input is closed ({error})") from error
