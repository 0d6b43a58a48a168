"""Starting a match's bots together: container start-up (about 0.15-0.3 s each) overlaps,
so a table of six is ready in little more than the time of one."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from sandbox.backend import Backend
from sandbox.channel import Channel
from sandbox.limits import Limits


class Closes(Protocol):
    def close(self) -> None: ...


C = TypeVar("C", bound=Closes)


@dataclass(frozen=True)
class SeatStart:
    """What ``Backend.start`` needs for one seat."""

    code: Path
    label: str
    limits: Limits = field(default_factory=Limits)
    env: Mapping[str, str] | None = None


def start_many(backend: Backend, seats: Sequence[SeatStart], *, threads: int = 8) -> list[Channel]:
    """Start every seat at once; their channels in ``seats`` order.

    If any start fails, the others are closed and the first error is raised: a match
    gets all its bots or none.
    """
    return together([functools.partial(_start, backend, seat) for seat in seats], threads)


def _start(backend: Backend, seat: SeatStart) -> Channel:
    return backend.start(seat.code, label=seat.label, limits=seat.limits, env=seat.env)


def together(starts: Sequence[Callable[[], C]], threads: int = 8) -> list[C]:
    """Run every start at once (threads); their results in order, all of them or none
    (``all_or_none``)."""
    if not starts:
        return []
    with ThreadPoolExecutor(max_workers=min(threads, len(starts))) as pool:
        return all_or_none([pool.submit(start) for start in starts])


def all_or_none(futures: list[Future[C]]) -> list[C]:
    """Every future's result (a channel, a seat); if any start failed, the others are
    closed and the first error is raised."""
    channels: list[C] = []
    error: BaseException | None = None
    for future in futures:
        try:
            channels.append(future.result())
        except BaseException as failure:  # keep collecting, to close what did start
            error = error or failure
    if error is not None:
        for channel in channels:
            with contextlib.suppress(Exception):
                channel.close()
        raise error
    return channels
