"""Byte buffers for a bot's output: lines under a length cap, and a capped log.

A bot may write anything: gigabytes without a newline, one enormous line, an endless
standard error. These buffers keep what the referee needs and bound everything else, so
a hostile bot costs the worker a fixed amount of memory whatever it writes.
"""

from __future__ import annotations

from sandbox.channel import LineTooLong

#: How much of an over-long line ``LineTooLong.head`` keeps.
HEAD_BYTES = 1024


class LineSplitter:
    """Turns a byte stream into lines (without their newlines), refusing over-long ones.

    After an over-long line the rest of it is skipped up to its newline, so the stream
    stays in step for whoever still reads it.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline
        self._skipping = False

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def room(self) -> int:
        """How many bytes a reader may take next without the buffer passing the cap by
        more than one byte (at least one: complete lines are taken before reading more)."""
        return max(1, self.cap + 1 - len(self._buffer))

    def next_line(self) -> bytes | None:
        """The next complete line, or None until one is complete; raises LineTooLong."""
        buffer = self._buffer
        end = buffer.find(b"\n", self._scanned)
        if 0 <= end == len(buffer) - 1 and end <= self.cap and not self._skipping:
            line = bytes(buffer[:end])  # the usual case: exactly one whole line buffered
            buffer.clear()
            self._scanned = 0
            return line
        if self._skipping:
            if end < 0:
                self._buffer.clear()
                self._scanned = 0
                return None
            self._drop(end + 1)
            self._skipping = False
            return self.next_line()
        if end < 0:
            self._scanned = len(self._buffer)
            if len(self._buffer) > self.cap:
                self._too_long(len(self._buffer))
            return None
        if end > self.cap:
            self._too_long(end)
        line = bytes(self._buffer[:end])
        self._drop(end + 1)
        return line

    def _drop(self, count: int) -> None:
        del self._buffer[:count]
        self._scanned = 0

    def _too_long(self, length: int) -> None:
        head = bytes(self._buffer[: min(HEAD_BYTES, length)])
        newline = self._buffer.find(b"\n")
        if newline >= 0:
            self._drop(newline + 1)
        else:
            self._buffer.clear()
            self._scanned = 0
            self._skipping = True
        raise LineTooLong(f"the bot wrote a line over {self.cap} bytes ({length} so far)", head)


class CappedLog:
    """Keeps the start and the end of a stream (where errors and tracebacks are), at most
    ``cap`` bytes in all, and counts what was dropped between them."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0

    def write(self, data: bytes) -> None:
        room = self.cap // 2 - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail += data
        keep = self.cap - self.cap // 2
        excess = len(self._tail) - keep
        if excess > 0:
            del self._tail[:excess]
            self.dropped += excess

    def getvalue(self) -> bytes:
        if not self.dropped:
            return bytes(self._head + self._tail)
        note = f"\n[... {self.dropped} bytes dropped ...]\n".encode()
        return bytes(self._head) + note + bytes(self._tail)
