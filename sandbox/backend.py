"""How the referee's side asks for a running bot, whatever backend runs it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from sandbox.channel import Channel
from sandbox.limits import Limits


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
        """Run ``code/main.py`` with Python and return its channel.

        ``code`` is a folder holding the bot's files (``main.py`` at its top); ``label``
        names the match and seat (containers carry it, so leftovers can be found);
        ``env`` adds environment variables for the bot.
        """
        ...
