"""How the referee's side asks for a running bot, whatever backend runs it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

from sandbox.channel import Channel
from sandbox.limits import Limits
from sandbox.reuse import ReusedSeat
from sandbox.runtimes import Runtime


class Backend(Protocol):
    """Starts bot programs and gives back their line channels."""

    #: "docker" or "local"; shown in match records.
    name: str

    def start(
        self,
        code: Path,
        *,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> Channel:
        """Run the bot in folder ``code`` and return its channel.

        ``code`` holds the bot's files (one entry file at its top: ``sandbox.runtimes``),
        built first if its language is compiled (once per content); ``label``
        names the match and seat (containers carry it, so leftovers can be found);
        ``env`` adds environment variables for the bot.
        """
        ...

    def build(self, code: Path, *, label: str = "build") -> Runtime:
        """Compile the bot in ``code`` if its language needs it (``start`` reuses the
        result) and return its runtime. BadBotCode says what is wrong with the bot
        (BuildFailed, with the compiler's messages, when it does not compile)."""
        ...


class WarmSeat(Channel, Protocol):
    """A bot's channel whose container is up before its program may start
    (``Prestarts.prestart``)."""

    def go(self) -> None:
        """Let the bot's program start (it has run none of its code before)."""
        ...

    def wait_removed(self, timeout: float) -> bool:
        """After ``close``: whether the bot's container is gone within ``timeout`` s."""
        ...


@runtime_checkable
class Prestarts(Protocol):
    """A backend that can start a bot's container ahead of its seating (the Docker one
    with a pipe root): see ``sandbox.lifecycle``."""

    def can_prestart(self) -> bool:
        """Whether ``prestart`` works here."""
        ...

    def prestart(
        self,
        code: Path,
        *,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> WarmSeat:
        """``Backend.start``'s bot, its program held back until ``go``; closing it
        returns at once and removes the container in the background."""
        ...


@runtime_checkable
class Reuses(Protocol):
    """A backend that can keep one container per bot for a whole match, a fresh process
    per seating (the Docker one, for images with the supervisor's interpreter:
    ``sandbox.reuse``)."""

    def can_reuse(self, code: Path) -> bool:
        """Whether the bot in ``code`` can have such a container here."""
        ...

    def start_reused(
        self,
        code: Path,
        *,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> ReusedSeat:
        """The bot's container, up, with no bot process yet (``ReusedSeat.spawn``)."""
        ...
