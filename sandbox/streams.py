"""The line channel over non-blocking file descriptors, shared by the sandbox transports.

A transport (named pipes, the Docker attach socket) supplies: ``_fill`` (wait up to a
timeout, then hand whatever the bot wrote to ``_stdout`` and the stderr log), ``_write``
(push bytes to the bot before a deadline), ``_end_input`` (the bot reads end-of-file)
and ``_release`` (free its descriptors). Everything else (deadlines, the line cap, the
stderr cap, a close that never hangs and runs once) lives here, so every transport
behaves the same.
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


class StreamChannel:
    """A ``sandbox.channel.Channel`` over descriptors; see the module docstring."""

    def __init__(self, limits: Limits, stop: Callable[[], None], grace_s: float) -> None:
        self._grace_s = grace_s
        self._lines = LineSplitter(limits.line_bytes)
        self._log = CappedLog(limits.stderr_bytes)
        self._send_timeout_s = limits.send_timeout_s
        self._stop = stop
        self._ended = False  # the bot's standard output ended
        self._closed = False
        self._close_lock = threading.Lock()

    def send(self, line: bytes) -> None:
        if self._closed or self._ended:
            raise ChannelClosed(self._gone("the bot is gone (its output ended)"))
        self._write(line + b"\n", time.monotonic() + self._send_timeout_s)

    def recv(self, deadline: float) -> bytes:
        late = False
        while True:
            line = self._lines.next_line()
            if self._closed:
                raise ChannelClosed("the channel was closed")
            if line is not None:
                return line
            if self._ended:
                raise ChannelClosed(
                    self._gone("the bot's output ended (it exited or closed stdout)")
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if late:
                    raise ChannelTimeout("no complete line from the bot before the deadline")
                late = True  # past the deadline, what had already arrived still counts
            self._fill(max(remaining, 0))

    def stderr(self) -> bytes:
        if not self._closed:
            self._fill(0)
        return self._log.getvalue()

    def close(self) -> None:
        """End the bot's input, let it finish for ``grace_s`` (keeping its last words on
        standard error, dropping its output), then remove it."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        try:
            with contextlib.suppress(OSError):
                self._end_input()
                deadline = time.monotonic() + self._grace_s
                while (remaining := deadline - time.monotonic()) > 0:
                    read = self._fill(0 if self._ended else remaining)
                    if self._ended and not read:
                        break
            self._stop()
        except Exception:  # close must not raise: leftovers are removed later
            log.exception("stopping a bot failed; remove_leftovers() will clean up")
        finally:
            self._release()

    def _stdout(self, data: bytes) -> None:
        """Output of the bot: kept for recv, or dropped once the channel is closing."""
        if not self._closed:
            self._lines.feed(data)

    def _gone(self, message: str) -> str:
        """What ChannelClosed says once the bot is gone; a transport that can tell how
        the bot ended (an exit status) says that instead."""
        return message

    # What a transport supplies.
    def _fill(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the bot's output; whether anything was read."""
        raise NotImplementedError

    def _write(self, data: bytes, deadline: float) -> None:
        raise NotImplementedError

    def _end_input(self) -> None:
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError


def wait_for(fd: int, events: int, deadline: float) -> bool:
    """Whether ``fd`` is ready for ``events`` (select.POLL*) before ``deadline``."""
    poller = select.poll()
    poller.register(fd, events)
    remaining = deadline - time.monotonic()
    return bool(poller.poll(max(0, math.ceil(remaining * 1000))))


def write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write all of ``data`` to the non-blocking ``fd`` before ``deadline``.

    Raises ChannelTimeout when the bot stops reading (its input stays full), and
    ChannelClosed when nobody can read it any more.
    """
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, ConnectionError) as error:
            raise ChannelClosed(f"the bot's input is closed ({error})") from error
        view = view[written:]
        if view and not wait_for(fd, select.POLLOUT, deadline):
            raise ChannelTimeout("the bot has not read its input in time (its input is full)")
