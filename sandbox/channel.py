"""The line channel between the referee and one bot, whatever runs the bot.

The referee sees only this interface, so it works the same with a Docker container, a
local process, or a scripted fake in the tests. A channel may also offer
``cpu_seconds() -> float | None``, the CPU seconds its bot's processes used so far (the
container's cgroup, the local process's times): the referee then times the bot by them
(``judge.bot_clock``, reached through ``judge.sandbox_bridge.SandboxChannel``).
"""

from __future__ import annotations

from typing import Protocol


class ChannelClosed(Exception):
    """The bot's output ended (it exited or closed its standard output)."""


class ChannelTimeout(Exception):
    """No complete line arrived before the deadline."""


class LineTooLong(Exception):
    """The bot wrote a line longer than the channel's cap; the text so far is attached."""

    def __init__(self, message: str, head: bytes = b"") -> None:
        super().__init__(message)
        self.head = head


class Channel(Protocol):
    """One bot's standard input and output as lines (UTF-8 JSON text, one object a line)."""

    def send(self, line: bytes) -> None:
        """Write one line (without its newline) to the bot; raises ChannelClosed if gone."""

    def recv(self, deadline: float) -> bytes:
        """The next line (without its newline) before ``deadline`` (a time.monotonic value).

        Raises ChannelTimeout, ChannelClosed or LineTooLong.
        """

    def stderr(self) -> bytes:
        """What the bot wrote to its standard error so far, capped."""

    def close(self) -> None:
        """Stop the bot and release everything it held; never hangs, safe to call twice."""
