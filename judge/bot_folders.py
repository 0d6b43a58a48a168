"""A bot's folder, ready for a sandbox: house bots, plugin games, the content hash.

The command line (``judge.cli.sandboxing.prepare_bot``) and the service's worker
(``tournaments.play.runner``) both run house bots as processes; this module, below both,
makes their folders. It imports the standard library and judge/ only (no sandbox), so the
copy of judge/ a house bot runs from holds it too.
"""

from __future__ import annotations

import atexit
import compileall
import functools
import hashlib
import py_compile
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import judge
from judge.bots import house_policy
from judge.games import game_class, parts
from judge.referee import BotInfo

JUDGE_DIR = Path(judge.__file__).resolve().parent
#: The folder to put on a local bot's PYTHONPATH so ``import botkit`` works.
RUNTIME_DIR = JUDGE_DIR / "runtime"
#: What a house bot's copy of judge/ leaves out: the command line and the one module that
#: imports sandbox/ (neither is in a bot's process, and neither would import there).
NOT_COPIED = ("__pycache__", "*.pyc", "cli", "sandbox_bridge.py")

#: A house bot's seed, when its runner gives it one per seating (the worker does, so
#: that a house bot's folder is the same in every match: ``sandbox.pool`` keys on it).
HOUSE_SEED_ENV = "JUDGE_HOUSE_SEED"


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
    shutil.copytree(JUDGE_DIR, target, ignore=shutil.ignore_patterns(*NOT_COPIED))
    compileall.compile_dir(
        target,
        ddir="judge",
        quiet=1,
        invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
    )
    return target


def house_bot(game: str, name: str, folder: Path, *, seed: int = 0) -> PreparedBot:
    """The game's house bot NAME as a process, in the new folder ``folder``: a compiled
    copy of judge/ and a main.py (seeded by ``seed`` unless its runner sets
    HOUSE_SEED_ENV). GameError names the house bots there are."""
    folder.mkdir()
    house_policy(game, name)  # GameError naming the house bots there are
    shutil.copytree(_compiled_judge(), folder / "judge")
    plugin = plugin_game(game, folder)
    (folder / "main.py").write_text(
        "import os\nimport sys\n\n" + plugin + "from judge.bots.house_main import main\n\n"
        f"seed = os.environ.get({HOUSE_SEED_ENV!r}, {str(seed)!r})\n"
        f"sys.exit(main([{name!r}, seed]))\n"
    )
    return PreparedBot(BotInfo(f"house:{name}", content_hash(folder)), folder)


def plugin_game(game: str, folder: Path) -> str:
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
