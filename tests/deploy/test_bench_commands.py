"""The benchmarks are grouped by what they measure (bench/<group>/<name>.py), and every
``python -m bench...`` a doc or a benchmark names is a module that exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"python -m (bench(?:\.\w+)+)")


def named_commands() -> dict[str, set[str]]:
    """Each bench module a command line in the docs or in bench/ names, and where."""
    found: dict[str, set[str]] = {}
    places = [*ROOT.glob("*.md"), *ROOT.glob("docs/**/*.md"), *ROOT.glob("bench/**/*.py")]
    for path in places:
        for module in COMMAND.findall(path.read_text()):
            found.setdefault(module, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_named_bench_command_exists() -> None:
    commands = named_commands()
    assert len(commands) > 20, "the docs name the benchmarks they quote"
    missing = {m: sorted(w) for m, w in commands.items() if importlib.util.find_spec(m) is None}
    assert not missing, f"these commands name no module (bench/ was regrouped?): {missing}"


def test_benchmarks_live_in_their_groups() -> None:
    """bench/'s root holds only helpers shared by several groups (``_name.py``): a new
    benchmark goes in the folder of what it measures (engines, sandbox, service, ...)."""
    loose = [p.name for p in (ROOT / "bench").glob("*.py") if not p.name.startswith("_")]
    assert not loose, f"move these into a group folder of bench/: {loose}"
    groups = [p for p in (ROOT / "bench").iterdir() if (p / "__init__.py").is_file()]
    assert len(groups) >= 5
    for group in groups:
        assert any(not p.name.startswith("_") for p in group.glob("*.py")), group.name
