"""The service names no game: everything about a game lives with the game (judge/games/NAME/),
and tournaments/ reads only the registry. This scans every file of tournaments/ (code,
templates, scripts, styles) for a registered game's name or title; the migrations are
history and are left out."""

from __future__ import annotations

import re
from pathlib import Path

from judge.games import GAMES
from tests.judge.highcard import HighCard

SERVICE = Path(__file__).resolve().parents[2] / "tournaments"
#: Files the service serves or runs (compiled files and the migrations' history aside).
SUFFIXES = {".py", ".html", ".js", ".css", ".txt", ".json"}


def words_of_games() -> re.Pattern[str]:
    """Every game's registry name and title, as whole words, in any case."""
    classes = {**GAMES, HighCard.name: HighCard}
    words = {word for cls in classes.values() for word in (cls.name, cls.title) if word}
    return re.compile(r"\b(" + "|".join(map(re.escape, sorted(words))) + r")\b", re.IGNORECASE)


def service_files() -> list[Path]:
    return [
        path
        for path in sorted(SERVICE.rglob("*"))
        if path.suffix in SUFFIXES and "migrations" not in path.parts and path.is_file()
    ]


def test_no_file_of_the_service_names_a_game() -> None:
    pattern = words_of_games()
    found = [
        f"{path.relative_to(SERVICE.parent)}:{number}: {match.group(0)!r}"
        for path in service_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for match in pattern.finditer(line)
    ]
    assert not found, "game knowledge belongs to the game (docs/adding-a-game.md):\n" + "\n".join(
        found
    )


def test_the_scan_would_see_a_game_named_in_the_service() -> None:
    pattern = words_of_games()
    assert len(service_files()) > 50
    assert pattern.search('MOVES = {"Oceans11": 120}') and pattern.search("a Big Two play")
    assert not pattern.search("a bigtwofold plan")
