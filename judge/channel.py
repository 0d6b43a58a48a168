"""The line channel the referee talks to, as the judge sees it.

judge/ may not import sandbox/, so the referee states here, structurally, what it needs
from a bot's channel: ``send``, ``recv``, ``stderr`` and ``close``, with the judge's own
exceptions. A sandbox channel (which raises ``sandbox.channel`` exceptions) is wrapped by
``judge.sandbox_bridge.SandboxChannel``, which converts them; in-process players
(``judge.players``) and the tests' scripted fakes raise these directly.

Whatever a channel raises, the referee turns it into a fault of the bot's seat: an
unexpected exception is a fault too, never an escape.

A channel that can count the CPU seconds of the bot behind it is also ``CpuClocked``: the
referee then times the bot by them (``judge.bot_clock``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


class BotGone(Exception):
    """The bot's output ended: it exited, crashed or closed its standard output."""


class BotTimeout(Exception):
    """No complete line arrived before the deadline (or the bot did not read its input)."""


class BotLineTooLong(Exception):
    """The bot wrote a line longer than the cap; ``head`` is the start of it."""

    def __init__(self, message: str, head: bytes = b"") -> None:
        super().__init__(message)
        self.head = head


class BotChannel(Protocol):
    """One bot's standard input and output as lines, without their newlines."""

    def send(self, line: bytes) -> None:
        """Write one line to the bot; raises BotGone or BotTimeout."""

    def recv(self, deadline: float) -> bytes:
        """The bot's next line before ``deadline`` (a clock value, see the referee).

        A line already waiting is returned even when the deadline has passed (the referee
        reads several bots against one start-up deadline). Raises BotTimeout, BotGone or
        BotLineTooLong.
        """

    def stderr(self) -> bytes:
        """The bot's standard error so far, capped; still available after ``close``."""

    def close(self) -> None:
        """Stop the bot and release what it held; never hangs, safe to call twice."""


@runtime_checkable
class CpuClocked(Protocol):
    """A channel that counts the CPU seconds its bot's processes used (a container's
    cgroup, a local process's times), read by the referee before and after each question."""

    def cpu_seconds(self) -> float | None:
        """CPU seconds used so far (a counter: only differences mean anything); None when
        they cannot be read now (the referee then falls back to the wall clock)."""
