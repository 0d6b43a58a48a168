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

    It never holds more than ``cap + 1`` bytes (a line at the cap and its newline), whoever
    feeds it: ``feed`` takes only what fits and says how much, and the transport leaves
    the rest where it was (in the pipe), so a bot that writes faster than lines are taken
    waits instead of filling the worker's memory. After an over-long line the rest of it
    is skipped, as it arrives, up to its newline, so the stream stays in step for whoever
    still reads it.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline
        self._skipping = False

    def __len__(self) -> int:
        """Bytes held: at most ``cap + 1``."""
        return len(self._buffer)

    def room(self) -> int:
        """How many bytes ``feed`` takes next (0 while ``cap + 1`` are held: take lines
        first)."""
        return self.cap + 1 - len(self._buffer)

    def feed(self, data: bytes) -> int:
        """Keep what fits of ``data``; how many of its bytes were used (kept or skipped)."""
        if self._skipping:
            return self._skip(data)
        room = self.cap + 1 - len(self._buffer)
        if len(data) <= room:
            self._buffer += data
            return len(data)
        self._buffer += data[:room]
        return room

    def next_line(self) -> bytes | None:
        """The next complete line, or None until one is complete; raises LineTooLong."""
        buffer = self._buffer
        if not buffer:
            return None
        end = buffer.find(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(buffer)
            if self._scanned > self.cap:
                self._too_long(self._scanned)
            return None
        if end > self.cap:
            self._too_long(end)
        line = bytes(buffer[:end])
        if end == len(buffer) - 1:
            buffer.clear()  # the usual case: exactly one whole line held
        else:
            del buffer[: end + 1]
        self._scanned = 0
        return line

    def _skip(self, data: bytes) -> int:
        """Drop the rest of an over-long line: ``data`` up to its first newline, then go on
        with what follows."""
        newline = data.find(b"\n")
        if newline < 0:
            return len(data)
        self._skipping = False
        return newline + 1 + self.feed(data[newline + 1 :])

    def _too_long(self, length: int) -> None:
        head = bytes(self._buffer[: min(HEAD_BYTES, length)])
        newline = self._buffer.find(b"\n")
        if newline >= 0:
            del self._buffer[: newline + 1]
        else:
            self._buffer.clear()
            self._skipping = True
        self._scanned = 0
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
