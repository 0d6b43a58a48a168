"""The engine's user-namespace remap, as the worker must know it on the host's side.

An engine started with ``--userns-remap`` runs every container in a user namespace whose
users are a subordinate range of the host's (``/etc/subuid``: ``dockremap:100000:65536``
by default): the container's root is the host's uid 100000, its ``nobody`` (65534) the
host's 165534. So a bot's PID 1 is an unprivileged host user, and the worker, which
makes files that a container opens (the seat folders' FIFOs of ``sandbox.pipes``), must
give them to the host's uid of the container's user, not the container's.

The engine says it remaps (``name=userns`` among its security options) and where its
range starts (its root folder is ``<data-root>/<uid>.<gid>``, the range's first ids), so
this needs neither ``/etc/subuid`` nor a setting: a worker in a container of its own
reads the same from the engine.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, Final

#: The remapped engine's root folder ends so: the first host uid and gid of the range.
_ROOT_DIR: Final = re.compile(r"/(\d+)\.(\d+)/?$")
#: The range must hold every user a container has (nobody is 65534).
RANGE_NEEDED: Final = 65536


@dataclasses.dataclass(frozen=True)
class IdMap:
    """Container ids to the host's: ``host + container id`` (0 and 0: no remap)."""

    uid: int = 0
    gid: int = 0

    @property
    def remapped(self) -> bool:
        return bool(self.uid or self.gid)

    def host_uid(self, container_uid: int) -> int:
        """The host's uid of a container's user (the file owner the container sees as
        ``container_uid``)."""
        return self.uid + container_uid

    def host_gid(self, container_gid: int) -> int:
        return self.gid + container_gid


NONE: Final = IdMap()


def from_engine_info(info: Mapping[str, Any]) -> IdMap:
    """The remap of an engine from its ``info()``; ``NONE`` when it does not remap.
    ValueError when it remaps but its root folder does not say where the range starts
    (an engine other than Docker's own daemon)."""
    options = [str(option) for option in info.get("SecurityOptions") or []]
    if not any(option == "userns" or "name=userns" in option for option in options):
        return NONE
    root = str(info.get("DockerRootDir") or "")
    found = _ROOT_DIR.search(root)
    if found is None:
        raise ValueError(
            f"the engine remaps users (userns) but its root folder {root!r} does not end in "
            "UID.GID, so the host's ids of its containers are unknown; run Docker's own "
            "dockerd with --userns-remap (docs/deploy.md)"
        )
    return IdMap(int(found.group(1)), int(found.group(2)))
