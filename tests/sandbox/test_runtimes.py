"""How a bot folder names its language: one entry file, or bot.json choosing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbox.runtimes import BY_ENTRY, CPP, GO, JAVA, PYTHON, RUNTIMES, BadBotCode, detect


def folder(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("entry", sorted(BY_ENTRY))
def test_the_one_entry_file_names_the_runtime(tmp_path: Path, entry: str) -> None:
    wanted = detect(folder(tmp_path, {entry: "", "helper.h": "", "notes.txt": ""}))
    assert wanted.runtime is BY_ENTRY[entry]
    assert wanted.flags == ()


def test_every_runtime_has_its_own_entry_and_image() -> None:
    assert len(BY_ENTRY) == len(RUNTIMES) == 6
    assert len({r.image for r in RUNTIMES.values()}) == 6
    assert not PYTHON.compiled and CPP.compiled and JAVA.compiled and GO.compiled


def test_no_entry_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BadBotCode, match=r"no entry file.*main\.py.*main\.cpp"):
        detect(folder(tmp_path, {"bot.py": ""}))


def test_two_entry_files_need_bot_json_to_choose(tmp_path: Path) -> None:
    code = folder(tmp_path, {"main.py": "", "main.cpp": ""})
    with pytest.raises(BadBotCode, match="several entry files"):
        detect(code)
    (code / "bot.json").write_text(json.dumps({"language": "cpp", "flags": ["-O3"]}))
    wanted = detect(code)
    assert wanted.runtime is CPP
    assert wanted.flags == ("-O3",)


@pytest.mark.parametrize(
    ("bot_json", "message"),
    [
        ("[1]", "must be an object"),
        ('{"language": "cpp", "output": "x"}', "must be an object"),
        ("{", "not valid JSON"),
        ('{"language": "cobol"}', "unknown language 'cobol'"),
        ('{"language": ["cpp"]}', "unknown language"),
        ('{"language": "go"}', "no main.go"),
        ('{"flags": "-O3"}', "must be a list of strings"),
        ('{"flags": ["-o", "/etc/passwd"]}', "not allowed for cpp"),
        ('{"flags": ["-fplugin=/tmp/x.so"]}', "not allowed for cpp"),
        ('{"language": "python", "flags": ["-O3"]}', "not compiled"),
        (" " * 5000, "larger than"),
    ],
)
def test_a_bad_bot_json_is_refused_with_a_reason(
    tmp_path: Path, bot_json: str, message: str
) -> None:
    files = {"main.cpp": "", "bot.json": bot_json}
    if "language" in bot_json:
        files["main.py"] = ""  # two entry files: bot.json's choice is what is checked
    code = folder(tmp_path, files)
    with pytest.raises(BadBotCode, match=message):
        detect(code)
