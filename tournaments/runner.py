"""Plays one stored match: the bots' code into the sandbox, the referee over their channels.

This is the worker's only contact with judge/ and sandbox/. It reads nothing from the
database itself: the caller passes what the match needs (``MatchPlan``), so the time spent
here is sandbox and referee time only.
"""

from __future__ import annotations

import io
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import judge
from judge.bots import house_policy
from judge.channel import BotChannel, BotGone, BotLineTooLong, BotTimeout
from judge.players import PolicyChannel, house_seed
from judge.referee import BotInfo, MatchSpec, TimeControl, play_match
from sandbox.backend import Backend
from sandbox.channel import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits

RUNTIME_DIR = Path(judge.__file__).resolve().parent / "runtime"


class InfrastructureError(RuntimeError):
    """The match could not be played for a reason that is not a bot's (retry it)."""


@dataclass(frozen=True)
class SeatPlan:
    """One seat: the bot's name and hash, and either its code (a zip) or a house policy."""

    name: str
    content_hash: str
    code: bytes = b""
    house_policy: str = ""


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


@dataclass
class Timings:
    """Seconds spent starting bots (containers) and in the referee's play."""

    sandbox_start: float = 0.0
    referee: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)


class SandboxSeat:
    """A sandbox channel as the referee's ``BotChannel`` (the judge's own exceptions)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    def send(self, line: bytes) -> None:
        try:
            self.channel.send(line)
        except ChannelClosed as error:
            raise BotGone(str(error)) from None
        except ChannelTimeout as error:
            raise BotTimeout(str(error)) from None

    def recv(self, deadline: float) -> bytes:
        try:
            return self.channel.recv(deadline)
        except ChannelClosed as error:
            raise BotGone(str(error)) from None
        except ChannelTimeout as error:
            raise BotTimeout(str(error)) from None
        except LineTooLong as error:
            raise BotLineTooLong(str(error), error.head) from None

    def stderr(self) -> bytes:
        return self.channel.stderr()

    def close(self) -> None:
        self.channel.close()


def make_backend(name: str) -> Backend:
    """The sandbox backend ``name`` ("docker" or "local")."""
    if name == "local":
        from sandbox.local import LocalBackend

        return LocalBackend()
    if name == "docker":
        from sandbox import docker_backend  # type: ignore[attr-defined,unused-ignore]

        backend: Backend = docker_backend.DockerBackend()
        return backend
    raise ValueError(f"unknown sandbox backend {name!r}; choose docker or local")


def bot_environment(backend: Backend) -> dict[str, str] | None:
    """A local bot finds the bot helper (``import botkit``) the image carries in Docker."""
    return {"PYTHONPATH": str(RUNTIME_DIR)} if backend.name == "local" else None


def unpack(code: bytes, into: Path) -> Path:
    """Write a bot's zip into a folder of its own, refusing paths that leave it."""
    into.mkdir(parents=True)
    with zipfile.ZipFile(io.BytesIO(code)) as archive:
        for info in archive.infolist():
            path = PurePosixPath(info.filename)
            if path.is_absolute() or ".." in path.parts:
                raise ValueError(f"bot archive entry {info.filename!r} leaves its folder")
            if info.is_dir():
                continue
            target = into.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
    return into


def play(plan: MatchPlan, backend: Callable[[], Backend]) -> tuple[dict[str, Any], Timings]:
    """Play the match; raises InfrastructureError if a bot could not be started."""
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

    with tempfile.TemporaryDirectory(prefix=f"match-{plan.match_id}-") as workdir:

        def start(index: int) -> BotChannel:
            seat = plan.seats[index]
            if seat.house_policy:
                policy = house_policy(plan.game, seat.house_policy, house_seed(plan.seed, index))
                return PolicyChannel(policy)
            began = time.perf_counter()
            try:
                if not sandbox:
                    sandbox.append(backend())
                code = unpack(seat.code, Path(workdir) / f"seat{index}")
                label = f"match-{plan.match_id}-bot-{index}"
                channel = sandbox[0].start(
                    code, label=label, limits=limits, env=bot_environment(sandbox[0])
                )
            except Exception as error:
                raise InfrastructureError(f"could not start bot {index}: {error!r}") from error
            finally:
                timings.sandbox_start += time.perf_counter() - began
            return SandboxSeat(channel)

        began = time.perf_counter()
        outcome = play_match(spec, bots, start)
        timings.referee = time.perf_counter() - began - timings.sandbox_start
    return outcome.to_json() | {"record": outcome.record}, timings
