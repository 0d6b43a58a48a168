"""A bot's clock: its own CPU seconds, with a wall clock three times as long behind it.

Online judges time a program by the CPU it used, not by how long the host took to run it,
and stop a program that sleeps or blocks with a wall-clock limit a few times longer (DMOJ's
``wall_time_factor`` is 3 by default; QingdaoU's judger runs tests at twice the CPU limit;
Codeforces' "idleness limit" ends a program that waits without computing). Chess servers
go the other way round and forgive measured lag up to a quota. A bot here is charged the
same way as a judged program:

- **CPU clock**: where the bot's channel can count its CPU seconds (``CpuClocked``: the
  container's cgroup, a local process's own times), a move costs the CPU seconds the bot
  used from the moment it was asked until its answer arrived: ``move_s`` free, the excess
  from its bank, a timeout once both are spent. A host loaded by other work stretches
  the bot's wall time but not its CPU time, so load costs it nothing; a bot that computes
  too long is over its CPU budget whatever the load.
- **Wall clock behind it**: ``WALL_FACTOR`` times each figure: the start-up limit, the
  move limit, and a wall bank of its own (three times the bank) that a move's wall time
  over three times the move limit draws from; so a bot that sleeps, blocks or waits on
  I/O (no CPU) still times out, and cannot hold a worker more than three times as long
  as a bot on the wall clock could. A wall timeout is the one a stalled host can cause:
  the referee asks its ``host`` check about it (``judge.stalls``).
- Channels that cannot count CPU (house bots played in the worker's process, a person's
  seat, a Docker engine whose cgroups the worker cannot see) are timed on the wall clock
  alone, exactly as before: ``move_s`` and the bank in wall seconds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from judge.channel import BotChannel, BotTimeout, CpuClocked

#: The wall clock behind a CPU clock, as a multiple of its figures.
WALL_FACTOR: Final = 3.0
#: While waiting for an answer, the bot's CPU seconds are looked at again after half of
#: what is left of its CPU budget (so a bot on one core cannot overrun it by more than
#: that), within these bounds (seconds).
POLL_MIN_S: Final = 0.01
POLL_MAX_S: Final = 1.0

#: Reads a bot's CPU seconds so far (a counter: only differences mean anything).
CpuReader = Callable[[], "float | None"]
#: The referee's clock (time.monotonic).
Clock = Callable[[], float]


class OutOfTime(Exception):
    """The bot's clock ran out; ``wall``: it was the wall clock (which a stalled host can
    run out), not the bot's own CPU seconds."""

    def __init__(self, reason: str, wall: bool) -> None:
        super().__init__(reason)
        self.wall = wall


@dataclass(frozen=True)
class Mark:
    """Both clocks when the bot was asked: the wall clock and its CPU seconds (None when
    its channel cannot count them)."""

    wall: float
    cpu: float | None


@dataclass(frozen=True)
class Spent:
    """What one answer took: wall seconds, and CPU seconds (None: timed on the wall)."""

    wall: float
    cpu: float | None

    @property
    def charged(self) -> float:
        """What the bot's clock is charged: its CPU seconds, else the wall's."""
        return self.wall if self.cpu is None else self.cpu


def cpu_reader(channel: BotChannel) -> CpuReader | None:
    """The channel's CPU counter, if it has one."""
    return channel.cpu_seconds if isinstance(channel, CpuClocked) else None


def read_cpu(cpu: CpuReader | None) -> float | None:
    """The bot's CPU seconds now; None when they cannot be read (never raises)."""
    if cpu is None:
        return None
    with contextlib.suppress(Exception):
        value = cpu()
        return None if value is None else float(value)
    return None


def mark(cpu: CpuReader | None, clock: Clock) -> Mark:
    return Mark(clock(), read_cpu(cpu))


def await_line(
    channel: BotChannel,
    cpu: CpuReader | None,
    since: Mark,
    limit: float,
    wall_limit: float,
    what: str,
    clock: Clock,
    *,
    after_check: bool = True,
) -> tuple[bytes, Spent]:
    """The bot's next line, asked for at ``since``, within ``limit`` seconds of its clock
    (and ``wall_limit`` seconds of wall clock when its clock is its CPU); raises
    OutOfTime, or the channel's other exceptions. ``what`` names the limit in the fault.

    ``after_check``: a line that arrived but was read past the limit is late too (a
    move); without it a line already waiting counts (the start-up, where one deadline
    serves bots read one after another).
    """
    if since.cpu is None:
        return _on_the_wall(channel, since, limit, what, clock, after_check)
    deadline = since.wall + wall_limit
    # Asked just now (a move: marked, then sent): it cannot have used more than that
    # moment's CPU, so its counter is first read once the wait is over (a read of a
    # container's counter costs the worker 5-10 us, two a move then instead of three).
    fresh = clock() - since.wall < POLL_MIN_S
    while True:
        used = 0.0 if fresh else _used(cpu, since)
        fresh = False
        if used > limit:
            raise OutOfTime(f"used {used:.3f} s of CPU without answering, past {what}", False)
        wait = min(POLL_MAX_S, max(POLL_MIN_S, (limit - used) / 2))
        try:
            line = channel.recv(min(deadline, clock() + wait))
        except BotTimeout:
            if clock() < deadline:
                continue
            used = _used(cpu, since)
            if used > limit:
                raise OutOfTime(
                    f"used {used:.3f} s of CPU without answering, past {what}", False
                ) from None
            raise OutOfTime(
                f"no answer in time: none within {wall_limit:.3f} s of wall clock, its cap "
                f"behind {what} (it used {used:.3f} s of CPU): a bot that waits times out too",
                True,
            ) from None
        spent = Spent(clock() - since.wall, _used(cpu, since))
        if spent.charged > limit:
            raise OutOfTime(
                f"answered after using {spent.charged:.3f} s of CPU, past {what}", False
            )
        if after_check and spent.wall > wall_limit:
            raise OutOfTime(
                f"answered after {spent.wall:.3f} s of wall clock, past its cap of "
                f"{wall_limit:.3f} s behind {what}",
                True,
            )
        return line, spent


def _on_the_wall(
    channel: BotChannel, since: Mark, limit: float, what: str, clock: Clock, after_check: bool
) -> tuple[bytes, Spent]:
    """A bot without a CPU clock: ``limit`` wall seconds, as every bot had before."""
    try:
        line = channel.recv(since.wall + limit)
    except BotTimeout as error:
        raise OutOfTime(f"no answer in time ({error})", True) from None
    spent = Spent(clock() - since.wall, None)
    if after_check and spent.wall > limit:
        raise OutOfTime(f"answered after {spent.wall:.3f} s, past {what}", True)
    return line, spent


def _used(cpu: CpuReader | None, since: Mark) -> float:
    """CPU seconds since ``since`` (0 when they can no longer be read: the bot is gone,
    and the channel says so)."""
    now = read_cpu(cpu)
    if now is None or since.cpu is None:
        return 0.0
    return max(0.0, now - since.cpu)
