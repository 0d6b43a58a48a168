"""The command line's BOT arguments as bot folders, and its sandbox backend.

``prepare_bot`` turns a command-line BOT (a .py file, a folder with an entry file, or
``house:NAME``) into a folder the backend can run, with its name and content hash.
House bots and plugin games are made by ``judge.bot_folders``, and the sandbox is wired
in by ``judge.sandbox_bridge``: the service's worker uses those two directly (it never
imports judge.cli), the command line is one more caller. Their names are re-exported
here for the command line's older callers.
"""

from __future__ import annotations

import shutil
import sys
import warnings
from pathlib import Path

from judge.bot_folders import (
    HOUSE_SEED_ENV,
    JUDGE_DIR,
    RUNTIME_DIR,
    PreparedBot,
    content_hash,
    house_bot,
)
from judge.referee import BotInfo
from judge.sandbox_bridge import (
    SandboxChannel,
    SandboxUnavailable,
    bot_environment,
    make_backend,
    starter,
)
from sandbox.backend import Backend
from sandbox.runtimes import BY_ENTRY

__all__ = [
    "HOUSE_SEED_ENV",
    "JUDGE_DIR",
    "RUNTIME_DIR",
    "BotSpecError",
    "PreparedBot",
    "SandboxChannel",
    "SandboxUnavailable",
    "backend_for_cli",
    "bot_environment",
    "content_hash",
    "make_backend",
    "prepare_bot",
    "starter",
]


class BotSpecError(ValueError):
    """A BOT argument that names no runnable bot."""


def prepare_bot(spec: str, game: str, workdir: Path, *, seed: int = 0) -> PreparedBot:
    """The runnable folder of a BOT argument; copies go under ``workdir``.

    ``house:NAME`` is the game's house bot NAME as a process (seeded by ``seed``); a
    ``.py`` file is copied into a fresh folder as main.py, a file named like an entry
    file (main.cpp, Main.java, ...: ``sandbox.runtimes``) as itself; a folder must hold
    an entry file.
    """
    folder = workdir / f"bot{len(list(workdir.iterdir()))}"
    if spec.startswith("house:"):
        return house_bot(game, spec.removeprefix("house:"), folder, seed=seed)
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


def backend_for_cli(name: str) -> Backend:
    """``make_backend``, with its warnings printed plainly on standard error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        backend = make_backend(name)
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    return backend
