"""The line channel over non-blocking file descriptors, shared by the sandbox transports.

A transport (named pipes, the Docker attach socket) supplies three things: ``_fill``
(wait up to a timeout, then move whatever the bot wrote into the line splitter and the
stderr log), ``_write`` (push bytes to the bot before a deadline) and ``_release`` (free
its descriptors). Everything else (deadlines, the line cap, the stderr cap, a close that
never hangs and runs once) lives here, so every transport behaves the same.
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

    def __init__(self, limits: Limits, stop: Callable[[], None]) -> None:
        self._lines = LineSplitter(limits.line_bytes)
        self._log = CappedLog(limits.stderr_bytes)
        self._send_timeout_s = limits.send_timeout_s
        self._stop = stop
        self._ended = False  # the bot's standard output ended
        self._closed = False
        self._close_lock = threading.Lock()

    def send(self, line: bytes) -> None:
        if self._closed or self._ended:
            raise ChannelClosed("the bot is gone (its output ended)")
        self._write(line + b"\n", time.monotonic() + self._send_timeout_s)

    def recv(self, deadline: float) -> bytes:
        while True:
            if self._closed:
                raise ChannelClosed("the channel was closed")
            line = self._lines.next_line()
            if line is not None:
                return line
            if self._ended:
                raise ChannelClosed("the bot's output ended (it exited or closed stdout)")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout("no complete line from the bot before the deadline")
            self._fill(remaining)

    def stderr(self) -> bytes:
        if not self._closed:
            self._fill(0)
        return self._log.getvalue()

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        try:
            with contextlib.suppress(OSError):
                self._fill(0)  # keep the last words of its standard error
            self._stop()
        except Exception:  # close must not raise: leftovers are removed later
            log.exception("stopping a bot failed; remove_leftovers() will clean up")
        finally:
            self._release()

    # What a transport supplies.
    def _fill(self, timeout: float) -> None:
        raise NotImplementedError

    def _write(self, data: bytes, deadline: float) -> None:
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
