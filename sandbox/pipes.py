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
import io
import os
import re
import select
import shutil
import tarfile
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from sandbox.channel import ChannelClosed
from sandbox.limits import Limits
from sandbox.streams import CHUNK, StreamChannel, poll_ms, write_all

#: Where the seat folder appears inside the container.
MOUNT_POINT = "/seat"
#: The FIFOs of a seat: the bot's standard input, output and error.
FIFOS = ("in", "out", "err")
#: Seat folders are named so; remove_leftovers deletes only folders named so.
PREFIX = "seat-"
#: The seat folder's subfolder holding the bot's code (warm starts: sandbox.docker_backend).
CODE = "code"


class SeatFolder:
    """One seat's folder of FIFOs, readable by the bot's user and no one else's bots."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(
        cls,
        root: Path,
        label: str,
        bot_uid: int,
        fifos: tuple[str, ...] = FIFOS,
        bot_gid: int | None = None,
    ) -> SeatFolder:
        """A new folder under ``root`` holding ``fifos``, for the bot's user only (host
        ids: a remapping engine's are offset, ``sandbox.userns``; the gid is the uid's
        unless given)."""
        root.mkdir(parents=True, exist_ok=True, mode=0o711)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", label)[:40]
        path = root / f"{PREFIX}{safe}-{uuid.uuid4().hex[:12]}"
        path.mkdir(mode=0o755)
        folder = cls(path)
        try:
            for name in fifos:
                fifo = path / name
                os.mkfifo(fifo, 0o600)
                try:
                    os.chown(fifo, bot_uid, bot_uid if bot_gid is None else bot_gid)
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

    @property
    def code(self) -> Path:
        """Where ``put_code`` unpacks the bot's code (mounted read-only at /bot)."""
        return self.path / CODE

    def put_code(self, archive: bytes) -> None:
        """Unpack the bot's code archive (``pack_code``'s or a build's) into ``code``:
        folders and regular files only, owned by this process, read-only to the bot."""
        self.code.mkdir(mode=0o755)
        with tarfile.open(fileobj=io.BytesIO(archive)) as entries:
            for info in entries:
                _unpack(entries, info, self.code)

    def remove(self) -> None:
        remove_seat_folder(self.path)


def _unpack(entries: tarfile.TarFile, info: tarfile.TarInfo, into: Path) -> None:
    parts = PurePosixPath(info.name).parts
    if not parts or PurePosixPath(info.name).is_absolute() or ".." in parts:
        raise ValueError(f"code archive entry {info.name!r} leaves its folder")
    target = into.joinpath(*parts)
    if info.isdir():
        target.mkdir(mode=0o755, parents=True, exist_ok=True)
        return
    if not info.isfile():
        raise ValueError(f"code archive entry {info.name!r} is neither a file nor a folder")
    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    body = entries.extractfile(info)
    assert body is not None  # a regular file's
    mode = 0o755 if info.mode & 0o100 else 0o644
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(target, flags, mode)
    with os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(body, out)
        os.fchmod(out.fileno(), mode)  # whatever the umask


#: Where ``temporary_root`` puts a pipe root when the host has it as a tmpfs.
SHARED_MEMORY = Path("/dev/shm")


def temporary_root(prefix: str) -> Path:
    """A new pipe root, searchable by every user (0711, where ``mkdtemp`` makes 0700): a
    remapping engine's containers reach it (``check_reachable``). Its seat folders stay
    the bots' own (each seat's FIFOs are its user's, mode 0600).

    It is made on a tmpfs (``fast_folder``) where the host has one: every seating of a
    pooled bot makes a folder and three FIFOs and removes them, which cost the worker
    0.5-2.7 ms of CPU on a disk's ext4 and 0.06-0.2 ms on a tmpfs (docs/sandbox.md)."""
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=fast_folder()))
    root.chmod(0o711)
    return root


def fast_folder(mounts: Path = Path("/proc/self/mounts")) -> Path | None:
    """``/dev/shm`` if it is a tmpfs this process may write in, else None (the temporary
    folder's default)."""
    if not os.access(SHARED_MEMORY, os.W_OK | os.X_OK):
        return None
    try:
        lines = mounts.read_text().splitlines()
    except OSError:
        return None
    found = [f for f in map(str.split, lines) if len(f) > 2 and f[1] == str(SHARED_MEMORY)]
    return SHARED_MEMORY if found and found[-1][2] == "tmpfs" else None


def check_reachable(root: Path) -> None:
    """ValueError unless every folder down to ``root`` may be searched by any user.

    A remapping engine (``sandbox.userns``) mounts a seat folder as the container's root,
    an unprivileged host user: it must reach the folder through "other"'s permissions
    (root's own private folders, such as a 0700 temporary folder, stop it)."""
    root = root.absolute()
    for folder in [*reversed(root.parents), root]:
        try:
            mode = folder.stat().st_mode
        except FileNotFoundError:
            return  # made later by SeatFolder.create, searchable (0711)
        if not mode & 0o001:
            raise ValueError(
                f"the pipe root {root} is not reachable by the engine's remapped users: "
                f"{folder} is mode {mode & 0o777:o}; give it o+x (chmod o+x {folder}) "
                "or choose a pipe root under a folder everyone may search"
            )


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

    ``gated``: the input FIFO is opened only by ``go``. The bot's shell opens its input
    first (``SeatFolder.command``), and opening a FIFO for reading blocks until a writer
    comes, so until ``go`` the container is up but the bot's program has not started: a
    warm container that has run none of the bot's code.
    """

    def __init__(
        self,
        folder: SeatFolder,
        limits: Limits,
        stop: Callable[[], None],
        grace_s: float,
        *,
        gated: bool = False,
    ) -> None:
        super().__init__(limits, stop, grace_s)
        self.folder = folder
        self._gated = gated
        self._in: int | None = None if gated else self._open_input()
        flags = os.O_NONBLOCK | os.O_CLOEXEC
        self._out = os.open(folder.path / "out", os.O_RDONLY | flags)
        self._err: int | None = os.open(folder.path / "err", os.O_RDONLY | flags)
        self._poller = select.poll()
        self._poller.register(self._out, select.POLLIN)
        self._poller.register(self._err, select.POLLIN)

    def _open_input(self) -> int:
        return os.open(self.folder.path / "in", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)

    @property
    def started(self) -> bool:
        """Whether the bot's program may run: not gated, or ``go`` was called."""
        return not self._gated

    def go(self) -> None:
        """Let a gated bot's program start (its shell's open of the input returns)."""
        if self._gated and not self._closed:
            self._in = self._open_input()
            self._gated = False

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
        self._close_descriptors()
        self.folder.remove()

    def _close_descriptors(self) -> None:
        for fd in (self._in, self._out, self._err):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
