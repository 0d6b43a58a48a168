""".env.example lists every environment variable the service reads, so it cannot drift.

The names are found in the source itself: the typed readers of tournaments/config/env.py called
with a literal name (``env_int("NAME", ...)``) and direct reads of ``os.environ``
(``.get``, ``[...]``, ``os.getenv``) in tournaments/ and in sandbox/, which the workers use.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READING_ROOMS = ("tournaments", "sandbox")
#: Read but not settings: the local sandbox passes the system's PATH on to its bots.
NOT_SETTINGS = {"PATH"}


def listed_in_env_example() -> set[str]:
    """Names set (or shown commented out) in .env.example; shared with tests/deploy."""
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", text, re.M))


def _is_os_environ(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _read_name(node: ast.AST) -> ast.expr | None:
    """The name argument of a read of the environment, or None if ``node`` is not one."""
    if isinstance(node, ast.Subscript) and _is_os_environ(node.value):
        return node.slice
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    if isinstance(func, ast.Name) and func.id.startswith("env_"):
        return node.args[0]
    if isinstance(func, ast.Attribute):
        if func.attr == "get" and _is_os_environ(func.value):
            return node.args[0]
        if func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os":
            return node.args[0]
    return None


def names_read(path: Path) -> Iterator[str]:
    """Literal variable names that the module at ``path`` reads from the environment."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        name = _read_name(node)
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            yield name.value


def variables_read() -> dict[str, str]:
    """Every variable read by the service's modules, with the first file that reads it."""
    found: dict[str, str] = {}
    for room in READING_ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            for name in names_read(path):
                found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def test_the_scan_finds_the_settings_typed_reads_and_direct_reads() -> None:
    found = variables_read()
    assert found["BOT_UPLOAD_MAX_BYTES"] == "tournaments/config/settings.py"
    assert found["API_REGISTRATION_RATE"] == "tournaments/config/settings.py"
    assert found["JUDGE_PIPE_ROOT"] == "sandbox/docker_backend.py"
    assert "DJANGO_SETTINGS_MODULE" not in found  # set by the service, not read from you


def test_names_read_sees_each_kind_of_read(tmp_path: Path) -> None:
    module = tmp_path / "reads.py"
    module.write_text(
        "import os\n"
        "a = env_int('A_NUMBER', 1)\n"
        "b = os.environ.get('B_TEXT', '')\n"
        "c = os.environ['C_KEY']\n"
        "d = os.getenv('D_FLAG')\n"
        "os.environ.setdefault('NOT_READ', 'x')\n"
    )
    assert sorted(names_read(module)) == ["A_NUMBER", "B_TEXT", "C_KEY", "D_FLAG"]


def test_every_variable_the_service_reads_is_listed_in_env_example() -> None:
    missing = {
        name: where
        for name, where in variables_read().items()
        if name not in listed_in_env_example() | NOT_SETTINGS
    }
    assert missing == {}, f"add these to .env.example: {missing}"
