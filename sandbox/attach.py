"""The fallback transport: the Docker attach stream, where no pipe folder is configured.

It needs nothing but the engine's API, so it works wherever the worker can reach the
engine, at about five times a plain pipe's cost per round trip. The engine multiplexes
standard output and error on one socket, each chunk behind an 8-byte header (stream
number, three zero bytes, big-endian length).
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
from collections.abc import Callable

from sandbox.channel import ChannelClosed, ChannelTimeout
from sandbox.limits import Limits
from sandbox.streams import CHUNK, StreamChannel, wait_for

HEADER = struct.Struct(">BxxxL")
STDOUT, STDERR = 1, 2


class AttachChannel(StreamChannel):
    """A bot's channel through a raw attach socket (attached before the container starts,
    so no output is missed)."""

    def __init__(
        self, sock: socket.socket, limits: Limits, stop: Callable[[], None], grace_s: float
    ) -> None:
        super().__init__(limits, stop, grace_s)
        self._sock = sock
        self._sock.setblocking(False)
        self._frames = bytearray()
        self._poller = select.poll()
        self._poller.register(self._sock, select.POLLIN)

    def _fill(self, timeout: float) -> bool:
        if self._ended or not self._poller.poll(max(0, int(timeout * 1000 + 0.999))):
            return False
        try:
            data = self._sock.recv(CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self._ended = True
            return False
        self._frames += data
        self._split_frames()
        return True

    def _split_frames(self) -> None:
        while len(self._frames) >= HEADER.size:
            stream, size = HEADER.unpack_from(self._frames)
            if len(self._frames) < HEADER.size + size:
                return
            payload = bytes(self._frames[HEADER.size : HEADER.size + size])
            del self._frames[: HEADER.size + size]
            if stream == STDOUT:
                self._stdout(payload)
            elif stream == STDERR:
                self._log.write(payload)

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[self._sock.send(view) :]
            except BlockingIOError:
                pass
            except OSError as error:
                raise ChannelClosed(f"the bot's input is closed ({error})") from error
            if view and not wait_for(self._sock.fileno(), select.POLLOUT, deadline):
                raise ChannelTimeout("the bot has not read its input in time")

    def _end_input(self) -> None:
        """Half-close: the engine then closes the bot's input (the container is made with
        ``stdin_once``)."""
        self._sock.shutdown(socket.SHUT_WR)

    def _release(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
