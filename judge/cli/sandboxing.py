"""Wiring the referee to sandbox/: bot folders, backends and the channel adapter.

judge/ proper never imports sandbox/; this module (in judge.cli, the one place allowed)
does, for the command line and for the service's worker:

- ``SandboxChannel`` wraps a ``sandbox.channel.Channel`` and converts its exceptions into
  the judge's (``judge.channel``), so the referee classifies faults without knowing the
  sandbox. This adapter is the one place where the two sets of exceptions meet.
- ``prepare_bot`` turns a command-line BOT (a .py file, a folder with main.py, or
  ``house:NAME``) into a folder the backend can run, with its name and content hash.
- ``make_backend`` gives the local or Docker backend (Docker imported only when asked).
- ``starter`` makes the referee's ``start(i)`` from a backend and prepared bots.
"""

from __future__ import annotations

import atexit
import compileall
import functools
import hashlib
import py_compile
import shutil
import sys
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

import judge
from judge.bots import house_policy
from judge.channel import BotGone, BotLineTooLong, BotTimeout
from judge.games import game_class, parts
from judge.referee import BotInfo, StartBot
from sandbox.backend import Backend
from sandbox.channel import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits
from sandbox.runtimes import BY_ENTRY

JUDGE_DIR = Path(judge.__file__).resolve().parent
#: The folder to put on a local bot's PYTHONPATH so ``import botkit`` works.
RUNTIME_DIR = JUDGE_DIR / "runtime"


class BotSpecError(ValueError):
    """A BOT argument that names no runnable bot."""


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


@dataclass(frozen=True)
class PreparedBot:
    """A bot ready to start: what the record calls it, and the folder holding main.py."""

    info: BotInfo
    folder: Path


def content_hash(folder: Path) -> str:
    """sha256 over every file's relative path and bytes (caches and hidden files skipped)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        skipped = any(part.startswith(".") or part == "__pycache__" for part in relative.parts)
        if path.is_file() and not skipped:
            digest.update(relative.as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + digest.hexdigest()


@functools.cache
def _compiled_judge() -> Path:
    """A copy of judge/ (stdlib only, no CLI) with every module compiled, made once per
    process: house bots start without compiling it (a sandbox's /bot is read-only, so
    Python could never keep its bytecode there: each start compiled 30 modules again).
    The bytecode is checked against a hash of its source, not a file time, so it stays
    valid whatever times the copies get."""
    root = Path(tempfile.mkdtemp(prefix="cardjudge-house-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    target = root / "judge"
    shutil.copytree(JUDGE_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "cli", "*.pyc"))
    compileall.compile_dir(
        target,
        ddir="judge",
        quiet=1,
        invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
    )
    return target


#: A house bot's seed, when its runner gives it one per seating (the worker does, so
#: that a house bot's folder is the same in every match: ``sandbox.pool`` keys on it).
HOUSE_SEED_ENV = "JUDGE_HOUSE_SEED"


def _house_folder(game: str, name: str, seed: int, folder: Path) -> None:
    """A self-contained bot folder: a compiled copy of judge/ (stdlib only) and a main.py."""
    house_policy(game, name)  # GameError naming the house bots there are
    shutil.copytree(_compiled_judge(), folder / "judge")
    plugin = _plugin_game(game, folder)
    (folder / "main.py").write_text(
        "import os\nimport sys\n\n" + plugin + "from judge.bots.house_main import main\n\n"
        f"seed = os.environ.get({HOUSE_SEED_ENV!r}, {str(seed)!r})\n"
        f"sys.exit(main([{name!r}, seed]))\n"
    )


def _plugin_game(game: str, folder: Path) -> str:
    """For a game defined outside judge/ (registered as a plugin, like the tests' toy), its
    package copied into the bot's folder and the lines of main.py that register it (a bot
    process starts with a fixed environment, so JUDGE_GAME_PLUGINS does not reach it);
    "" for the games of judge/games, which the copy of judge/ holds."""
    cls = game_class(game)
    package = parts.package_name(cls)
    if package == "judge" or package.startswith("judge."):
        return ""
    place = folder
    for parent in package.split(".")[:-1]:
        place = place / parent
        place.mkdir(exist_ok=True)
        (place / "__init__.py").touch()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(parts.package_folder(cls), folder.joinpath(*package.split(".")), ignore=skip)
    spec = f"{cls.__module__}:{cls.__name__}"
    return f"from judge.games import register_plugins\n\nregister_plugins({spec!r})\n\n"


def prepare_bot(spec: str, game: str, workdir: Path, *, seed: int = 0) -> PreparedBot:
    """The runnable folder of a BOT argument; copies go under ``workdir``.

    ``house:NAME`` is the game's house bot NAME as a process (seeded by ``seed``); a
    ``.py`` file is copied into a fresh folder as main.py, a file named like an entry
    file (main.cpp, Main.java, ...: ``sandbox.runtimes``) as itself; a folder must hold
    an entry file.
    """
    folder = workdir / f"bot{len(list(workdir.iterdir()))}"
    if spec.startswith("house:"):
        folder.mkdir()
        _house_folder(game, spec.removeprefix("house:"), seed, folder)
        return PreparedBot(BotInfo(spec, content_hash(folder)), folder)
    path = Path(spec)
    if path.is_file() and (path.suffix == ".py" or path.name in BY_ENTRY):
        folder.mkdir()
        shutil.copyfile(path, folder / (path.name if path.name in BY_ENTRY else "main.py"))
        return PreparedBot(BotInfo(path.name, content_hash(folder)), folder)
    if path.is_dir() and any((path / entry).is_file() for entry in BY_ENTRY):
        return PreparedBot(BotInfo(path.resolve().name, content_hash(path)), path.resolve())
    raise BotSpecError(
        f"bot {spec!r} is neither a .py file, a file or folder with an entry file "
        f"({', '.join(BY_ENTRY)}), nor house:NAME"
    )


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


def backend_for_cli(name: str) -> Backend:
    """``make_backend``, with its warnings printed plainly on standard error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        backend = make_backend(name)
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    return backend


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
