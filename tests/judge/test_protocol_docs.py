"""docs/protocol.md tells the truth: its complete bot plays, its exchanges fit the schemas."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

from judge.cli.sandboxing import prepare_bot, starter
from judge.games import GAMES
from judge.referee import MatchSpec, play_match
from sandbox.local import LocalBackend, NotASandboxWarning
from tests.judge.fakes import validate_message

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_the_documented_bot_plays_a_match_without_faults(tmp_path: Path) -> None:
    source = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert source is not None
    assert len(source.group(1).strip().splitlines()) <= 12
    (tmp_path / "doc_bot.py").write_text(source.group(1))
    bots = [prepare_bot(str(tmp_path / "doc_bot.py"), "bigtwo", tmp_path) for _ in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        backend = LocalBackend()
    outcome = play_match(
        MatchSpec("bigtwo", seed=1), [b.info for b in bots], starter(backend, bots, label="doc")
    )
    assert outcome.faults == []
    assert "choices" in outcome.logs[0]


def test_every_example_line_fits_its_schema() -> None:
    lines = [line for line in DOC.read_text().splitlines() if line.startswith(("> {", "< {"))]
    games = {json.loads(line[2:])["game"] for line in lines if '"type":"hello"' in line}
    assert games and games <= set(GAMES), "each example greets a registered game"
    for line in lines:
        validate_message(json.loads(line[2:]))
