"""What a game owns beside its engine, found in the game's own package by file name.

A game is a package ``judge/games/NAME/`` (or any package a test registers): its
``__init__`` is the engine class, and beside it, each optional:

| file | what it holds |
| --- | --- |
| ``bots.py`` | ``POLICIES``: the game's own house bots (``random`` exists for every game) |
| ``narration.py`` | ``events`` and ``outcome``: the replay told in words (judge.narration) |
| ``replay.js`` | the replay page's renderer, registered under the game's name |
| ``seeds/*.py`` | example bots the demo plays (else ``seeds/NAME/*.py`` of the repository) |
| ``rules.md`` | the rules page (else ``docs/rules/NAME.md``, where the other docs link to it) |
| ``rules-tests.md`` | each rule with its test (else ``docs/rules/tests/NAME.md``) |

Nothing else in the project lists a game's parts: the registry and these lookups are how
the service, the CLI and the tests find them, so a new game is its package plus its
import and entry in the registry (judge/games/__init__.py).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from judge.engine import Game

#: The repository holding judge/ (the shared docs/rules and seeds folders live there).
REPOSITORY = Path(__file__).resolve().parents[2]


def package_name(cls: type[Game]) -> str:
    """The package the game's class lives in (its module if that is a package)."""
    module = sys.modules[cls.__module__]
    return cls.__module__ if hasattr(module, "__path__") else cls.__module__.rpartition(".")[0]


def package_folder(cls: type[Game]) -> Path:
    """The folder of the game's package, where its parts are files."""
    module = sys.modules[cls.__module__]
    return Path(str(module.__file__)).resolve().parent


def part_module(cls: type[Game], part: str) -> ModuleType | None:
    """The game's ``part`` module (``bots``, ``narration``), or None when it has none."""
    name = f"{package_name(cls)}.{part}"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def renderer_file(cls: type[Game]) -> Path | None:
    """The game's replay renderer (``replay.js`` in its package), or None for the generic."""
    path = package_folder(cls) / "replay.js"
    return path if path.is_file() else None


def rules_file(cls: type[Game]) -> Path | None:
    """The game's rules page: ``rules.md`` in its package, else ``docs/rules/NAME.md``."""
    for path in (package_folder(cls) / "rules.md", REPOSITORY / "docs/rules" / f"{cls.name}.md"):
        if path.is_file():
            return path
    return None


def rules_tests_file(cls: type[Game]) -> Path | None:
    """The game's rules with their tests, for implementers: ``rules-tests.md`` in its
    package, else ``docs/rules/tests/NAME.md``."""
    for path in (
        package_folder(cls) / "rules-tests.md",
        REPOSITORY / "docs/rules/tests" / f"{cls.name}.md",
    ):
        if path.is_file():
            return path
    return None


def seed_files(cls: type[Game]) -> dict[str, Path]:
    """The game's example bots by name: ``seeds/*.py`` in its package, else the repository's
    ``seeds/NAME/*.py``; empty when it has none."""
    for folder in (package_folder(cls) / "seeds", REPOSITORY / "seeds" / cls.name):
        if folder.is_dir():
            return {path.stem: path for path in sorted(folder.glob("*.py"))}
    return {}
