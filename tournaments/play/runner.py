"""Plays one stored match: the bots' code into the sandbox, the referee over their channels.

This is the worker's only contact with judge/ and sandbox/. It reads nothing from the
database itself: the caller passes what the match needs (``MatchPlan``), so the time spent
here is sandbox and referee time only. An uploaded bot's archive is unpacked here; a
house bot's folder (with a plugin game's package) comes from ``judge.bot_folders`` and the
sandbox is reached through ``judge.sandbox_bridge``, as the command line does: the service
never imports judge.cli.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from judge import sandbox_bridge
from judge.bot_folders import HOUSE_SEED_ENV, house_bot
from judge.channel import BotChannel
from judge.players import house_channel, house_seed
from judge.protocol import FaultKind
from judge.referee import (
    BotInfo,
    Carried,
    GameMaker,
    HostStalled,
    MatchSpec,
    MatchStopped,
    TimeControl,
    blocks,
    play_match,
    schedule,
)
from judge.stalls import StallWatch
from sandbox.backend import Backend, Prestarts, Reuses
from sandbox.channel import Channel
from sandbox.lifecycle import ReuseTable, WarmTable
from sandbox.limits import Limits
from sandbox.parallel import SeatStart, start_many
from sandbox.pool import Pools, PoolTable
from tournaments.play.human_seat import PersonChannel

TIMEOUT = str(FaultKind.TIMEOUT)


class InfrastructureError(RuntimeError):
    """The match could not be played for a reason that is not a bot's (retry it).

    ``lasting``: the host cannot play it until an operator acts (a missing runtime image,
    no answer from the sandbox's engine): trying again changes nothing, and the message
    names the cause and the fix (``lasting_cause``).
    """

    def __init__(self, message: str, lasting: bool = False) -> None:
        super().__init__(message)
        self.lasting = lasting


def lasting_cause(error: BaseException | None) -> bool:
    """Whether ``error``, or an error that led to it, is a host fault no retry mends: the
    sandbox cannot be made (no engine), an image is missing, the engine does not answer."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, sandbox_bridge.SandboxUnavailable) or type(error).__name__ in LASTING:
            return True
        if isinstance(error, InfrastructureError) and error.lasting:
            return True
        error = error.__cause__ or error.__context__
    return False


#: The Docker SDK's and requests' errors (by name: neither is imported here) that say an
#: image is missing or the engine cannot be reached.
LASTING = frozenset({"ImageNotFound", "ConnectionError"})


class UnreadableCode(ValueError):
    """A stored bot's code is not a zip that unpacks safely: no retry can change that."""


# Re-exported: what play() raises once its StopSignal is set, and when a bot's clock ran
# out while this worker was stalled.
__all__ = ["HostStalled", "MatchStopped"]


class StopSignal:
    """Set from another thread to stop a match being played: the referee stops at its
    next move, and every bot started so far is closed now (a bot waiting out a long move
    is not waited for), so its container goes within moments."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._channels: list[Channel] = []
        #: Why the match was stopped (the first reason given).
        self.reason = ""

    def __call__(self) -> bool:
        return self._event.is_set()

    def watch(self, channels: list[Channel]) -> None:
        """Close these channels when the signal is set (at once if it already is)."""
        with self._lock:
            self._channels.extend(channels)
        if self._event.is_set():
            self._close(channels)

    def set(self, reason: str = "stopped") -> None:
        with self._lock:
            if not self._event.is_set():
                self.reason = reason
            self._event.set()
            channels = list(self._channels)
        self._close(channels)

    @staticmethod
    def _close(channels: list[Channel]) -> None:
        for channel in channels:
            with contextlib.suppress(Exception):
                channel.close()


#: What a broken zip raises on opening or reading (bad CRC, truncated, unknown method).
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError)


@dataclass(frozen=True)
class SeatPlan:
    """One seat: the bot's name and hash, and either its code (a zip) or a house policy."""

    name: str
    content_hash: str
    code: bytes = b""
    house_policy: str = ""
    #: A person plays this seat from a browser (tournaments.play.human_seat), not a bot.
    person: bool = False
    #: The seat whose seed a house bot here takes (None: its own). A duel's second game
    #: seeds B and A as they were seeded in the first (judge.duel.pairs.seed_slots).
    seed_slot: int | None = None


@dataclass(frozen=True)
class MatchPlan:
    match_id: int
    game: str
    variant: str
    options: dict[str, Any]
    seed: int
    games: int
    duplicate: bool
    time_control: dict[str, float]
    limits: dict[str, Any]
    seats: list[SeatPlan]
    #: The deployment's name (tournaments.play.instance), first in every container's label.
    instance: str = ""
    #: Play only these blocks (seatings) of the match, from ``carried`` (judge.referee's
    #: ``part``): one part of a duplicate match played on several hosts. None: all of it.
    part: range | None = None
    carried: Carried | None = None
    #: Which of the match's parts ``part`` is.
    part_index: int = 0


@dataclass
class Timings:
    """Seconds spent starting bots (containers) and in the referee's play; of the latter,
    ``sandbox_stop`` is the wall time during which some bot was being closed (and, at the
    end, the wait until the match's containers are gone)."""

    sandbox_start: float = 0.0
    referee: float = 0.0
    sandbox_stop: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)


class _Busy:
    """Wall time during which at least one of several threads is inside ``during``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._since = 0.0
        self.seconds = 0.0

    @contextlib.contextmanager
    def during(self) -> Iterator[None]:
        with self._lock:
            if not self._inside:
                self._since = time.perf_counter()
            self._inside += 1
        try:
            yield
        finally:
            with self._lock:
                self._inside -= 1
                if not self._inside:
                    self.seconds += time.perf_counter() - self._since


class _TimedChannel(sandbox_bridge.SandboxChannel):
    """The referee's channel to a sandboxed bot, its close timed into ``busy``."""

    def __init__(self, channel: Channel, busy: _Busy) -> None:
        super().__init__(channel)
        self._busy = busy

    def close(self) -> None:
        with self._busy.during():
            super().close()


def unpack(code: bytes, into: Path) -> Path:
    """Write a bot's zip into a folder of its own; UnreadableCode if it is not a readable
    zip or an entry's path leaves the folder."""
    into.mkdir(parents=True)
    try:
        with zipfile.ZipFile(io.BytesIO(code)) as archive:
            for info in archive.infolist():
                _unpack_entry(archive, info, into)
    except ZIP_ERRORS as error:
        raise UnreadableCode(
            f"the stored code is not a readable zip archive ({error}); upload the bot again"
        ) from error
    return into


def _unpack_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, into: Path) -> None:
    path = PurePosixPath(info.filename)
    if path.is_absolute() or ".." in path.parts:
        raise UnreadableCode(f"bot archive entry {info.filename!r} leaves its folder")
    if info.is_dir():
        return
    target = into.joinpath(*path.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(archive.read(info))


def unpack_uploaded(plan: MatchPlan, workdir: Path) -> dict[int, Path]:
    """Every uploaded seat's code, unpacked before any bot starts: a broken zip fails the
    whole match at once (UnreadableCode naming the seat) rather than faulting its bot."""
    folders = {}
    for index, seat in enumerate(plan.seats):
        if seat.house_policy or seat.person:
            continue
        try:
            folders[index] = unpack(seat.code, workdir / f"seat{index}")
        except UnreadableCode as error:
            raise UnreadableCode(f"seat {index} ({seat.name}): {error}") from error
    return folders


def seat_label(plan: MatchPlan, index: int) -> str:
    """``<instance>-match-<id>-bot<i>``: unique on an engine that deployments share."""
    label = f"match-{plan.match_id}-bot{index}"
    return f"{plan.instance}-{label}" if plan.instance else label


def make_backend(name: str) -> Backend:
    """The sandbox backend ``name``; InfrastructureError if it cannot run here."""
    try:
        return sandbox_bridge.make_backend(name)
    except sandbox_bridge.SandboxUnavailable as error:
        raise InfrastructureError(str(error), lasting=True) from error


def host_fault(plan: MatchPlan, outcome: dict[str, Any]) -> str:
    """Why a played match's result tells of the host rather than the bots ("" when it
    does not): every seat timed out at start-up (one bot slow to start is its own fault;
    all of them at once is a starved host: docs/tournaments.md has the figures), or a house
    bot faulted (the judge's own code). Such a match is voided and played again."""
    faults = outcome.get("faults") or []
    late = {f.get("bot") for f in faults if f.get("kind") == TIMEOUT and f.get("game") is None}
    if plan.seats and late == set(range(len(plan.seats))):
        return (
            "voided: every bot timed out at start-up, which says the host was too busy to "
            "start them, not that they were slow; not rated, it is played again"
        )
    for fault in faults:
        bot = fault.get("bot")
        if isinstance(bot, int) and 0 <= bot < len(plan.seats) and plan.seats[bot].house_policy:
            return (
                f"voided: the house bot {plan.seats[bot].name} faulted ({fault.get('kind')}: "
                f"{fault.get('reason')}), a fault of the host, not of the bots; not rated, "
                "it is played again"
            )
    return ""


def runnable_languages(sandbox: str) -> list[str]:
    """The languages (sandbox.runtimes names) whose bots this host can run now: with
    Docker, those whose runtime image the engine has (none when it does not answer);
    locally, those whose toolchain and interpreter are installed. A worker announces them
    (tournaments.play.tasks.Heartbeat), and the upload page marks the others."""
    from sandbox.runtimes import RUNTIMES

    if sandbox != "docker":
        return [
            r.name
            for r in RUNTIMES.values()
            if all(shutil.which(tool) for tool in filter(None, (r.tool, r.run[0])))
        ]
    try:
        docker_backend = import_module("sandbox.docker_backend")
        images = docker_backend.connect().images
    except Exception:  # no SDK, no engine: nothing runs
        return []
    found = []
    for runtime in RUNTIMES.values():
        image = runtime.image
        if runtime.name == "python":  # the bot image may be renamed (JUDGE_BOT_IMAGE)
            image = os.environ.get("JUDGE_BOT_IMAGE", image)
        try:
            images.get(image)
        except Exception:  # ImageNotFound, or the engine went away meanwhile
            continue
        found.append(runtime.name)
    return found


def pool_label(plan: MatchPlan) -> str:
    """``<instance>-pool``: the label of pooled containers, which serve many matches."""
    return f"{plan.instance}-pool" if plan.instance else "pool"


def _prepare(plan: MatchPlan, index: int, workdir: Path) -> Path:
    """The folder holding seat ``index``'s main.py: its uploaded code (unpacked into
    ``workdir``) or a house bot (the same folder in every match: its seed comes through
    ``seat_env``)."""
    seat = plan.seats[index]
    if seat.house_policy:
        return house_folder(plan.game, seat.house_policy)
    return unpack(seat.code, workdir / f"seat{index}")


_house_folders: dict[tuple[int, str, str], Path] = {}
_house_lock = threading.Lock()


def house_folder(game: str, policy: str) -> Path:
    """The house bot ``policy`` of ``game`` as a folder, made once per process and kept
    for its life (issue 45): its content is the same in every match (a seating's seed
    comes through its environment), and copying judge/ (about 950 files) into each
    match's folder and removing it after cost a duel's match of ten instant games 0.3 to
    0.65 s of its 1.5 to 2.3 s on a loaded host. Nothing writes there: a container gets a
    packed copy, and a local process runs the judge's own code, which writes no file.
    Keyed by the process id, so a forked child never shares (and at exit removes) its
    parent's."""
    key = (os.getpid(), game, policy)
    with _house_lock:
        if key not in _house_folders:
            root = Path(tempfile.mkdtemp(prefix=f"cardjudge-house-{game}-{policy}-"))
            atexit.register(shutil.rmtree, root, ignore_errors=True)
            _house_folders[key] = house_bot(game, policy, root / "bot").folder
        return _house_folders[key]


def seat_env(plan: MatchPlan, index: int, base: dict[str, str] | None) -> dict[str, str] | None:
    """Seat ``index``'s environment: the backend's, and a house bot's seed."""
    if not plan.seats[index].house_policy:
        return base
    return {**(base or {}), HOUSE_SEED_ENV: str(seat_seed(plan, index))}


def seat_seed(plan: MatchPlan, index: int) -> int:
    """The seed of a house bot in seat ``index``: the match's, derived for its seed slot."""
    slot = plan.seats[index].seed_slot
    return house_seed(plan.seed, index if slot is None else slot)


#: How a duplicate match's containers live (``play``'s ``lifecycle``).
Lifecycle = Literal["pool", "warm", "fresh", "reuse"]
LIFECYCLES: tuple[Lifecycle, ...] = ("pool", "warm", "fresh", "reuse")


def lifecycle_named(name: str) -> Lifecycle:
    """The lifecycle called ``name`` (a setting's value); ValueError if none is."""
    for lifecycle in LIFECYCLES:
        if lifecycle == name:
            return lifecycle
    raise ValueError(f"no sandbox lifecycle {name!r}; choose one of {', '.join(LIFECYCLES)}")


#: A match's containers, however they live.
Table = WarmTable | ReuseTable | PoolTable


def _table(
    backend: Backend,
    lifecycle: Lifecycle,
    seat: Callable[[int], SeatStart],
    first: list[int],
    blocks_in_match: int,
    stop: StopSignal | None,
    plan: MatchPlan,
) -> list[Table]:
    """The match's table for ``lifecycle``, if the backend can (none: start each block's
    bots as they come, and remove them before going on)."""
    reusable = isinstance(backend, Reuses) and all(backend.can_reuse(seat(j).code) for j in first)
    if lifecycle == "pool" and reusable and isinstance(backend, Pools):
        match = frozenset({f"match:{plan.match_id}", f"seed:{plan.seed}"})
        return [PoolTable(backend, seat, blocks_in_match, pool_label(plan), match)]
    if lifecycle == "reuse" and reusable and isinstance(backend, Reuses):
        return [ReuseTable(backend, seat)]
    if lifecycle != "fresh" and isinstance(backend, Prestarts) and backend.can_prestart():
        watch = stop.watch if stop is not None else None
        return [WarmTable(backend, seat, blocks_in_match, watch)]
    return []


def at_a_table(plan: MatchPlan) -> bool:
    """A person sits in the match: it is never voided for a stall of the worker. It is
    unrated, the person's clock is a minute a move, and voiding it would seat a silent
    person again and again (each time holding a table slot for minutes)."""
    return any(seat.person for seat in plan.seats)


def play(
    plan: MatchPlan,
    backend: Callable[[], Backend],
    *,
    house_in_sandbox: bool = True,
    stop: StopSignal | None = None,
    lifecycle: Lifecycle = "warm",
    make_game: GameMaker | None = None,
) -> tuple[dict[str, Any], Timings]:
    """Play the match; raises InfrastructureError if a bot could not be started (worth
    retrying), UnreadableCode if a stored bot's code cannot be unpacked (never worth it),
    MatchStopped once ``stop`` is set (its bots are closed).

    House bots run in the sandbox like uploaded ones (same clocks, same costs) unless
    ``house_in_sandbox`` is off, when they are called in this process (faster, for tests).
    ``lifecycle`` (docs/sandbox.md), where the backend can (Docker with a pipe root):
    ``warm`` starts each block's containers while the block before plays and removes
    them in the background; ``fresh`` lets each block start and remove its own (the old
    way); both give every seating fresh containers. ``reuse`` keeps one container per
    bot for the whole match, a fresh process in it per seating (``sandbox.reuse``:
    faster, with the small leaks docs/sandbox.md lists). None of the match's containers
    is left when this returns, except with ``pool`` (the worker's default): its
    containers go back to the backend's pool for later matches (``sandbox.pool``), none
    having served two seatings of this match. ``make_game`` replaces the registry's
    engine maker (the worker's reports each move to the live feed). A watchdog thread
    (``judge.stalls``) notices this process being stalled: a bot timing out across a
    stall raises HostStalled (its bots closed), the match being nobody's.
    """
    timings = Timings()
    spec = MatchSpec(
        game=plan.game,
        seed=plan.seed,
        variant=plan.variant or None,
        players=len(plan.seats),
        options=plan.options,
        games=plan.games,
        duplicate=plan.duplicate,
        time=TimeControl(**plan.time_control) if plan.time_control else TimeControl(),
    )
    bots = [BotInfo(seat.name, seat.content_hash) for seat in plan.seats]
    limits = Limits(**plan.limits)
    sandbox: list[Backend] = []
    tables: list[Table] = []
    closing = _Busy()
    block_count = len(blocks(schedule(spec, len(plan.seats))))
    if plan.part is not None:
        block_count = len(range(block_count)[plan.part.start : plan.part.stop])

    with tempfile.TemporaryDirectory(prefix=f"match-{plan.match_id}-") as workdir:
        folders = unpack_uploaded(plan, Path(workdir))
        # The bots the referee says it will ask for next (play_match's announce), started
        # together (containers start in parallel); a retired bot is never announced, so
        # none is started to go unused. Any left over at the end are closed.
        pending: dict[int, Channel] = {}

        def sandboxed(index: int) -> bool:
            if plan.seats[index].person:
                return False
            return house_in_sandbox or not plan.seats[index].house_policy

        def start_together(indices: list[int]) -> None:
            wanted = [j for j in indices if sandboxed(j) and j not in pending]
            if not wanted:
                return
            began = time.perf_counter()
            try:
                if not sandbox:
                    sandbox.append(backend())
                for j in wanted:
                    if j not in folders:
                        folders[j] = _prepare(plan, j, Path(workdir))
                env = sandbox_bridge.bot_environment(sandbox[0])

                def seat(j: int) -> SeatStart:
                    return SeatStart(
                        folders[j], seat_label(plan, j), limits, seat_env(plan, j, env)
                    )

                if not tables:
                    tables.extend(
                        _table(sandbox[0], lifecycle, seat, wanted, block_count, stop, plan)
                    )
                if tables:
                    taken = tables[0].take(wanted)
                    started = [taken[j] for j in wanted]
                else:
                    started = start_many(sandbox[0], [seat(j) for j in wanted])
                pending.update(zip(wanted, started, strict=True))
                if stop is not None:
                    stop.watch(started)
            except InfrastructureError:
                raise
            except Exception as error:
                raise InfrastructureError(
                    f"could not start bots {wanted}: {error}", lasting_cause(error)
                ) from error
            finally:
                timings.sandbox_start += time.perf_counter() - began

        def start(index: int) -> BotChannel:
            if plan.seats[index].person:
                return PersonChannel(plan.match_id)
            if not sandboxed(index):
                seed = seat_seed(plan, index)
                return house_channel(plan.game, plan.seats[index].house_policy, seed)
            if index not in pending:
                start_together([index])
            return _TimedChannel(pending.pop(index), closing)

        began = time.perf_counter()
        watch = StallWatch().start()
        try:
            outcome = play_match(
                spec,
                bots,
                start,
                announce=start_together,
                stop=stop,
                make_game=make_game,
                host=None if at_a_table(plan) else watch.stalled,
                part=plan.part,
                carried=plan.carried,
            )
        finally:
            watch.stop()
            with closing.during():
                for channel in pending.values():
                    with contextlib.suppress(Exception):
                        channel.close()
                for table in tables:
                    table.close()
        timings.referee = time.perf_counter() - began - timings.sandbox_start
        timings.sandbox_stop = closing.seconds
    return outcome.to_json() | {"record": outcome.record, "carry": outcome.carry}, timings
