"""Where the referee meets sandbox/: the channel adapter, the backends, a bot's environment.

judge/ proper never imports sandbox/; this module and the command line (judge.cli) are
the places allowed to (the import contracts in pyproject.toml say so). The command line
and the service's worker (``tournaments.play.runner``) are its callers; the service never
imports judge.cli.

- ``SandboxChannel`` wraps a ``sandbox.channel.Channel`` and converts its exceptions into
  the judge's (``judge.channel``), so the referee classifies faults without knowing the
  sandbox. This adapter is the one place where the two sets of exceptions meet.
- ``make_backend`` gives the local or Docker backend (Docker imported only when asked).
- ``starter`` makes the referee's ``start(i)`` from a backend and prepared bots
  (``judge.bot_folders``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import import_module

from judge.bot_folders import RUNTIME_DIR, PreparedBot
from judge.channel import BotGone, BotLineTooLong, BotTimeout
from judge.referee import StartBot
from sandbox.backend import Backend
from sandbox.channel import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits


class SandboxUnavailable(RuntimeError):
    """The chosen sandbox backend cannot run here (for example, no Docker engine)."""


class SandboxChannel:
    """A sandbox channel seen as a ``judge.channel.BotChannel``."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    def send(self, line: bytes) -> None:
        try:
            self.channel.send(line)
        except ChannelClosed as error:
            raise BotGone(str(error)) from error
        except ChannelTimeout as error:
            raise BotTimeout(str(error)) from error

    def recv(self, deadline: float) -> bytes:
        try:
            return self.channel.recv(deadline)
        except ChannelClosed as error:
            raise BotGone(str(error)) from error
        except ChannelTimeout as error:
            raise BotTimeout(str(error)) from error
        except LineTooLong as error:
            raise BotLineTooLong(str(error), error.head) from error

    def stderr(self) -> bytes:
        return self.channel.stderr()

    def cpu_seconds(self) -> float | None:
        """The bot's CPU seconds, where the sandbox channel counts them (``cpu_seconds``:
        a container's cgroup, a local process's times); else None (the wall clock)."""
        counter = getattr(self.channel, "cpu_seconds", None)
        return counter() if counter is not None else None

    def close(self) -> None:
        self.channel.close()


def make_backend(name: str) -> Backend:
    """The sandbox backend ``local`` or ``docker``; SandboxUnavailable says why not."""
    if name == "local":
        from sandbox.local import LocalBackend

        return LocalBackend()
    if name == "docker":
        try:  # imported by name: the Docker SDK is needed only when Docker is asked for
            docker_backend = import_module("sandbox.docker_backend")
        except ImportError as error:
            raise SandboxUnavailable(f"the docker backend is not available: {error}") from None
        try:
            backend: Backend = docker_backend.DockerBackend()
        except Exception as error:  # the Docker SDK raises several kinds when no engine answers
            raise SandboxUnavailable(
                f"cannot use Docker ({error}); is the Docker engine running? "
                "Try --sandbox local for bots you trust."
            ) from None
        return backend
    raise SandboxUnavailable(f"no sandbox {name!r}; choose local or docker")


def bot_environment(backend: Backend) -> dict[str, str] | None:
    """Extra environment a backend's bots need: the local one has to find botkit."""
    return {"PYTHONPATH": str(RUNTIME_DIR)} if backend.name == "local" else None


def starter(
    backend: Backend,
    bots: Sequence[PreparedBot],
    *,
    label: str,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
) -> StartBot:
    """The referee's ``start(i)``: runs bot ``i`` in ``backend`` behind the adapter."""
    chosen = limits or Limits()
    extra = {**(bot_environment(backend) or {}), **(env or {})}

    def start(index: int) -> SandboxChannel:
        channel = backend.start(
            bots[index].folder, label=f"{label}-bot{index}", limits=chosen, env=extra or None
        )
        return SandboxChannel(channel)

    return start
