"""The server's container lifecycles for ``python -m judge play --sandbox docker``.

``fresh``: every seating's bots start in new containers, removed before the next one
(``judge.sandbox_bridge.starter``). ``pool``: the worker's default (``sandbox.pool``): containers
kept across matches, a fresh bot process per seating, no container serving two seatings
of one match; with ``--matches N`` the later matches take the earlier ones' containers,
as a tournament's worker does. House bots get their seed per seating (by environment),
so their folder, and so their containers, are the same in every match.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from judge.bot_folders import HOUSE_SEED_ENV, PreparedBot
from judge.players import house_seed
from judge.referee import MatchSpec, blocks, schedule
from judge.sandbox_bridge import SandboxChannel, SandboxUnavailable
from sandbox.channel import Channel
from sandbox.limits import Limits
from sandbox.parallel import SeatStart
from sandbox.pool import Pools, PoolTable

if TYPE_CHECKING:
    from sandbox.docker_backend import DockerBackend

LIFECYCLES = ("fresh", "pool")


#: The prefix of the pipe folder a pooled ``play`` makes when JUDGE_PIPE_ROOT is unset.
OWN_PIPES = "judge-play-pipes-"


def pooled_backend() -> DockerBackend:
    """A Docker backend whose seats use FIFOs (the pool needs them): JUDGE_PIPE_ROOT, else
    a folder of this process's own under the temporary directory (``close_pool`` removes
    it)."""
    from sandbox.docker_backend import DockerBackend, pipe_root_from_env
    from sandbox.pipes import temporary_root

    root = pipe_root_from_env() or temporary_root(OWN_PIPES)
    try:
        return DockerBackend(pipe_root=root)
    except Exception as error:  # the Docker SDK raises several kinds when no engine answers
        raise SandboxUnavailable(
            f"cannot use Docker ({error}); is the Docker engine running? "
            "Try --sandbox local for bots you trust."
        ) from None


def close_pool(backend: object) -> None:
    """End a backend's pooled containers (if it has a pool) and the pipe folder it was
    given by ``pooled_backend``."""
    pool = getattr(backend, "pool", None)
    if pool is not None:
        pool.close()
    root = getattr(backend, "pipe_root", None)
    if isinstance(root, Path) and root.name.startswith(OWN_PIPES):
        shutil.rmtree(root, ignore_errors=True)


class PooledMatch:
    """One match's ``start`` and ``announce`` for the referee, over a ``PoolTable`` of
    ``backend``'s pool; ``close`` gives the containers back."""

    def __init__(
        self, backend: Pools, bots: Sequence[PreparedBot], spec: MatchSpec, label: str
    ) -> None:
        self.bots = bots
        self.spec = spec
        self.label = label
        count = len(blocks(schedule(spec, len(bots))))
        match = frozenset({f"seed:{spec.seed}"})
        self.table = PoolTable(backend, self.seat, count, f"{label}-pool", match)
        self.pending: dict[int, Channel] = {}

    def seat(self, index: int) -> SeatStart:
        bot = self.bots[index]
        env = None
        if bot.info.name.startswith("house:"):
            env = {HOUSE_SEED_ENV: str(house_seed(self.spec.seed, index))}
        return SeatStart(bot.folder, f"{self.label}-bot{index}", Limits(), env)

    def announce(self, indices: list[int]) -> None:
        wanted = [j for j in indices if j not in self.pending]
        if wanted:
            self.pending.update(self.table.take(wanted))

    def start(self, index: int) -> SandboxChannel:
        if index not in self.pending:
            self.announce([index])
        return SandboxChannel(self.pending.pop(index))

    def close(self) -> None:
        for channel in self.pending.values():
            channel.close()
        self.table.close()
