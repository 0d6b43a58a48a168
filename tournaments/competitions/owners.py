"""Whose code a bot runs, so that one owner's bots never share a rated table.

Bots at one table can tell each other their hands through the host kernel's caches
(docs/sandbox.md, "What crosses, measured"): one owner's two bots would be one player
with two seats. So the ladder never seats two of them together (matchmaking.Player.owner)
and a rated tournament plays such a table unrated (docs/fair-play.md). House bots, and bots
that play a house policy, run the service's code: they belong to no one here.
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.models import BotVersion


def code_owner(version: BotVersion) -> int | None:
    """The owner whose code the version runs, or None for the service's own."""
    return None if version.bot.house_policy else version.bot.owner_id


def one_owner_twice(versions: Sequence[BotVersion]) -> bool:
    """Whether two of these versions run one owner's code."""
    known = [o for o in map(code_owner, versions) if o is not None]
    return len(known) != len(set(known))


def seatable(versions: Sequence[BotVersion]) -> int:
    """How many of these versions one table could hold: one per owner, and every bot
    that runs the service's code."""
    owners = [code_owner(v) for v in versions]
    return len({o for o in owners if o is not None}) + owners.count(None)
