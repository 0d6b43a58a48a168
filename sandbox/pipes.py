"""The fast transport: named pipes in a per-seat folder that the bot's container mounts.

A pipe between two processes costs the same whether the processes share a container or
not, so a FIFO pair gives a containerised bot plain-pipe speed, where Docker's attach
stream (a socket through the engine) costs about five times more per round trip.

Each seat gets its own folder under a root the operator chooses (``JUDGE_PIPE_ROOT``),
holding only that seat's three FIFOs (``in``, ``out``, ``err``); the container mounts that
folder, read-only, at ``/seat``. Where the worker itself runs in a container, the root
must be mounted at the same path in the worker and on the host, because the engine reads
bind-mount paths on the host.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from sandbox.channel import ChannelClosed
from sandbox.limits import Limits
from sandbox.streams import CHUNK, StreamChannel, poll_ms, write_all

#: Where the seat folder appears inside the container.
MOUNT_POINT = "/seat"
#: The FIFOs of a seat: the bot's standard input, output and error.
FIFOS = ("in", "out", "err")
#: Seat folders are named so; remove_leftovers deletes only folders named so.
PREFIX = "seat-"


class SeatFolder:
    """One seat's folder of FIFOs, readable by the bot's user and no one else's bots."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, root: Path, label: str, bot_uid: int) -> SeatFolder:
        root.mkdir(parents=True, exist_ok=True, mode=0o711)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", label)[:40]
        path = root / f"{PREFIX}{safe}-{uuid.uuid4().hex[:12]}"
        path.mkdir(mode=0o755)
        folder = cls(path)
        try:
            for name in FIFOS:
                fifo = path / name
                os.mkfifo(fifo, 0o600)
                try:
                    os.chown(fifo, bot_uid, bot_uid)
                except PermissionError:  # a worker not running as root
                    fifo.chmod(0o666)
        except BaseException:
            folder.remove()
            raise
        return folder

    def command(self, program: list[str], where: str = MOUNT_POINT) -> list[str]:
        """``program`` run with its standard streams on this seat's FIFOs (in a shell),
        the folder being seen at ``where``."""
        quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in program)
        return ["/bin/sh", "-c", f"exec {quoted} <{where}/in >{where}/out 2>{where}/err"]

    def remove(self) -> None:
        remove_seat_folder(self.path)


def remove_seat_folder(path: Path) -> None:
    """Delete a seat folder (and nothing that is not one)."""
    if path.name.startswith(PREFIX):
        shutil.rmtree(path, ignore_errors=True)


class PipeChannel(StreamChannel):
    """A bot's channel through its seat's FIFOs.

    Open it before the container starts: the bot's shell then finds a reader and a writer
    at once. The input FIFO is held open for reading and writing, so opening never blocks
    and the bot sees its input end only when the channel closes. An output FIFO reports
    its end only after a writer came and went (Linux pipe semantics), so a bot that has
    not started yet reads as silent, not gone.
    """

    def __init__(
        self, folder: SeatFolder, limits: Limits, stop: Callable[[], None], grace_s: float
    ) -> None:
        super().__init__(limits, stop, grace_s)
        self.folder = folder
        flags = os.O_NONBLOCK | os.O_CLOEXEC
        self._in: int | None = os.open(folder.path / "in", os.O_RDWR | flags)
        self._out = os.open(folder.path / "out", os.O_RDONLY | flags)
        self._err: int | None = os.open(folder.path / "err", os.O_RDONLY | flags)
        self._poller = select.poll()
        self._poller.register(self._out, select.POLLIN)
        self._poller.register(self._err, select.POLLIN)

    def _fill(self, timeout: float) -> bool:
        read = False
        for fd, _events in self._poller.poll(poll_ms(timeout)):
            if fd != self._out:
                read = self._read_stderr() or read
                continue
            room = self._room()
            if not room:  # the line buffer is full: the rest waits in the pipe until recv
                continue
            try:
                data = os.read(fd, room)
            except BlockingIOError:
                continue
            if data:
                self._stdout(data)
                read = True
            else:
                self._ended = True
                self._poller.unregister(fd)
        return read

    def _read_stderr(self) -> bool:
        if self._err is None:
            return False
        try:
            data = os.read(self._err, CHUNK)
        except BlockingIOError:
            return False
        if data:
            self._log.write(data)
            return True
        self._poller.unregister(self._err)
        os.close(self._err)  # the bot's standard error ended
        self._err = None
        return False

    def _write(self, data: bytes, deadline: float) -> None:
        if self._in is None:
            raise ChannelClosed("the bot's input was ended")
        write_all(self._in, data, deadline)

    def _end_input(self) -> None:
        if self._in is not None:
            os.close(self._in)
            self._in = None

    def _release(self) -> None:
        for fd in (self._in, self._out, self._err):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.folder.remove()
