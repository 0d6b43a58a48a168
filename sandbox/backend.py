"""How the referee's side asks for a running bot, whatever backend runs it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from sandbox.channel import Channel
from sandbox.limits import Limits
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
