"""A bot container reused for every seating of a match, a fresh bot process each time.

Off by default (``JUDGE_SANDBOX_LIFECYCLE=reuse``; docs/sandbox.md says what it leaks).
The container runs ``sandbox.supervisor`` as PID 1; this is the worker's side of it:

- ``ReusedSeat`` holds the container's control FIFOs (unlinked once the supervisor has
  opened them: nothing else can open them again);
- ``spawn`` makes a fresh subfolder of FIFOs for the seating and asks the supervisor to
  start the bot on it, after checking that it is alone in the container with an empty
  /tmp; closing the seating's channel asks it to kill every process and empty /tmp, and
  any failure (no answer in time, anything left) retires the container: its removal
  starts and the next seating gets a new one.

The FIFOs of a seating are made only after the supervisor said the last seating's
processes are gone, so no process of an earlier seating can open them.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Final

from sandbox.alarms import ALARMS, Alarm
from sandbox.limits import Limits
from sandbox.pipes import FIFOS, PipeChannel, SeatFolder
from sandbox.removal import Removals, wait_all

#: The control FIFOs at the top of a reused seat's folder (sandbox.supervisor).
CONTROL: Final = ("ctl-in", "ctl-out")
#: How long the supervisor may take to start, or to clean between seatings.
ANSWER_TIMEOUT_S: Final = 20.0
#: The longest ``spawn`` command line (a seating's environment rides on it).
MAX_COMMAND_BYTES: Final = 4000


class SeatBroken(RuntimeError):
    """The supervisor did not answer as it should: the container is not reused."""


class ReusedSeat:
    """One bot's container for a whole match, or for many (``sandbox.pool``): see the
    module docstring.

    ``kill``, if given, is each seating's wall clock: it ends the container when a
    seating outlives ``limits.wall_clock_s`` (a pooled container lives much longer than
    one bot's allowance, so its own clock cannot be the seating's). ``cpu``, if given,
    reads the container's CPU seconds: every seating's channel gets it (the referee
    takes differences, so each seating is charged only what it used).
    """

    def __init__(
        self,
        folder: SeatFolder,
        limits: Limits,
        grace_s: float,
        bot_ids: tuple[int, int],
        removal: Callable[[], None],
        removals: Removals,
        kill: Callable[[], None] | None = None,
        cpu: Callable[[], float | None] | None = None,
    ) -> None:
        self.folder = folder
        self.limits = limits
        self.grace_s = grace_s
        #: The bot's uid and gid as the host sees them (``sandbox.userns``): its FIFOs' owner.
        self.bot_ids = bot_ids
        self._removal = removal
        self._removals = removals
        self._removed: Future[None] | None = None
        flags = os.O_NONBLOCK | os.O_CLOEXEC
        self._commands: int | None = os.open(folder.path / CONTROL[0], os.O_RDWR | flags)
        self._answers: int | None = os.open(folder.path / CONTROL[1], os.O_RDONLY | flags)
        self._pending = b""
        self.broken = False
        self.seatings = 0
        self.born = time.monotonic()
        #: The matches it has served (``sandbox.pool``: never the same one twice).
        self.served: frozenset[str] = frozenset()
        self._kill = kill
        self._cpu = cpu
        self._clock: Alarm | None = None

    def cpu_seconds(self) -> float | None:
        """The container's CPU seconds so far (every process of it, the supervisor's and
        the zygote's included), where the backend counts them; else None."""
        return self._cpu() if self._cpu is not None else None

    def greeted(self) -> None:
        """Wait for the supervisor's hello, then unlink the control FIFOs."""
        self._expect("hello")
        for name in CONTROL:
            with contextlib.suppress(FileNotFoundError):
                (self.folder.path / name).unlink()

    def spawn(self, env: Mapping[str, str] | None = None) -> PipeChannel:
        """A fresh bot process on fresh FIFOs, with ``env`` on top of the container's
        environment; SeatBroken (and the container retired) if the supervisor refuses or
        does not answer."""
        if self.broken:
            raise SeatBroken("this container is retired")
        extra = " " + json.dumps(dict(env), separators=(",", ":")) if env else ""
        if len(extra.encode()) > MAX_COMMAND_BYTES:
            raise ValueError(f"a seating's environment is longer than {MAX_COMMAND_BYTES} bytes")
        self.seatings += 1
        uid, gid = self.bot_ids
        seating = SeatFolder.create(self.folder.path, str(self.seatings), uid, FIFOS, bot_gid=gid)
        line = f"spawn {seating.path.name}{extra}"
        try:
            channel = PipeChannel(seating, self.limits, self._after_seating, self.grace_s)
        except BaseException:
            seating.remove()
            raise
        channel.cpu_clock = self._cpu  # the container's: each move is timed by what it adds
        try:
            self._command(line, "spawned")
        except BaseException:
            channel.close()
            raise
        if self._kill is not None:  # one thread keeps every seating's (sandbox.alarms)
            self._clock = ALARMS.set(self.limits.wall_clock_s, self._kill)
        return channel

    def _after_seating(self) -> None:
        """The seating's channel closed: every process goes, /tmp is emptied."""
        clock, self._clock = self._clock, None
        if clock is not None:
            clock.cancel()
        if not self.broken:
            with contextlib.suppress(SeatBroken):
                self._command("clean", "clean")

    def _command(self, line: str, wanted: str) -> None:
        if self._commands is None:
            raise SeatBroken("closed")
        try:
            os.write(self._commands, line.encode() + b"\n")
        except OSError as error:
            self._retire()
            raise SeatBroken(f"the supervisor is gone ({error})") from error
        self._expect(wanted)

    def _expect(self, wanted: str) -> None:
        answer = self._answer(time.monotonic() + ANSWER_TIMEOUT_S)
        if answer != wanted:
            self._retire()
            raise SeatBroken(f"the supervisor answered {answer!r}, not {wanted!r}")

    def _answer(self, deadline: float) -> str:
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            if self._answers is None or remaining <= 0:
                return "(no answer in time)"
            poller = select.poll()
            poller.register(self._answers, select.POLLIN)
            if not poller.poll(max(1, int(remaining * 1000))):
                continue
            try:
                data = os.read(self._answers, 4096)
            except BlockingIOError:
                continue
            if not data:
                return "(the supervisor ended)"
            self._pending += data
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("ascii", "replace")

    def _retire(self) -> None:
        """Stop using this container: its removal starts now."""
        self.broken = True
        self.close()

    def close(self) -> None:
        """End the container (its removal in the background); safe to call twice."""
        for fd in (self._commands, self._answers):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._commands = self._answers = None
        if self._removed is None:
            self._removed = self._removals.submit(self._removal)

    def wait_removed(self, timeout: float) -> bool:
        removed = self._removed
        return removed is not None and wait_all([removed], timeout)
