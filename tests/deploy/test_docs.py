"""The bot authors' and operators' docs say what is true: their code is the seeds' code,
the seed bots play without faults, a server record replays into a bot, links resolve."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from judge.bots import policies
from judge.games import GAMES, seed_files
from tournaments.models import bundle_code
from tournaments.play import runner

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "docs/README.md", "docs/bots.md", "docs/deploy.md", "seeds/README.md"]


def table(game: str) -> list[str]:
    """Every example bot of ``game`` at one table, filled up with its house bots (its own
    first) to the size of its demo's table: a game with no examples plays house bots."""
    cls = GAMES[game]
    seeds = [str(path.relative_to(ROOT)) for path in seed_files(game).values()]
    size = max(len(seeds), dict(cls.demo_format).get("table_size", cls.default_players))
    house = sorted(policies(game), key=lambda name: (name == "random", name))
    return seeds + [f"house:{house[i % len(house)]}" for i in range(size - len(seeds))]


#: Each game's table, from the registry.
TABLES = {game: table(game) for game in GAMES}


def judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


#: Each example bot of the repository, by its path, and its game: in seeds/NAME/ or in
#: the game package's own seeds/ (judge.games.parts finds either).
EXAMPLES = {
    str(path.relative_to(ROOT)): game
    for game in GAMES
    for path in seed_files(game).values()
    if path.is_relative_to(ROOT)
}


def test_each_example_in_bots_md_is_the_seed_bot_it_names() -> None:
    text = (ROOT / "docs" / "bots.md").read_text()
    shown = re.findall(r"`([\w./-]+\.py)`:\n\n```python\n(.*?)```", text, re.S)
    unknown = [path for path, _ in shown if path not in EXAMPLES]
    assert not unknown, f"docs/bots.md shows {unknown}, which are no game's example bots"
    assert {EXAMPLES[path] for path, _ in shown} == set(EXAMPLES.values()), (
        "docs/bots.md shows one example bot of each game that has some, by its path"
    )
    for path, code in shown:
        assert code == (ROOT / path).read_text(), path


def test_the_tables_cover_every_seed_bot() -> None:
    folders = [*(ROOT / "seeds").glob("*/*.py"), *(ROOT / "judge/games").glob("*/seeds/*.py")]
    seeds = {str(p.relative_to(ROOT)) for p in folders}
    assert seeds == {bot for bots in TABLES.values() for bot in bots if bot in EXAMPLES}
    assert seeds == set(EXAMPLES)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_seed_bot_plays_its_game_without_a_fault(game: str) -> None:
    done = judge("play", game, *TABLES[game], "--games=2", "--duplicate", "--seed=8", "--json")
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["faults"] == []
    assert len(outcome["places"]) == len(TABLES[game])


def test_a_match_record_from_the_service_replays_into_the_same_bot(tmp_path: Path) -> None:
    # Not duplicate: the bot keeps seat 0 in every game (see docs/bots.md on seatings).
    source = (ROOT / "seeds" / "oceans11" / "thrifty.py").read_bytes()
    code, digest = bundle_code({"main.py": source})
    plan = runner.MatchPlan(
        match_id=1, game="oceans11", variant="", options={}, seed=21, games=2,
        duplicate=False, time_control={}, limits={},
        seats=[runner.SeatPlan("thrifty v1", digest, code=code),
               runner.SeatPlan("house:greedy v1", "house", house_policy="greedy")],
    )  # fmt: skip
    outcome, _ = runner.play(plan, lambda: runner.make_backend("local"), house_in_sandbox=False)
    record = tmp_path / "match.json"
    record.write_text(json.dumps(outcome["record"]))  # what GET /api/matches/ID/replay/ gives

    assert judge("replay", str(record), "--verify").returncode == 0
    same = judge("replay", str(record), "--seat", "0", "seeds/oceans11/thrifty.py")
    assert same.returncode == 0, same.stderr
    assert re.search(r"seat 0: \d+ decision\(s\) asked, 0 differ", same.stdout), same.stdout


@pytest.mark.parametrize("page", DOCS)
def test_every_link_in_the_docs_leads_to_a_file(page: str) -> None:
    path = ROOT / page
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", path.read_text()):
        if not target.startswith("http"):
            assert (path.parent / target).exists(), f"{page} links to a missing {target}"


def test_deploy_md_lists_every_management_command() -> None:
    folder = ROOT / "tournaments" / "management" / "commands"
    commands = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    text = (ROOT / "docs" / "deploy.md").read_text()
    assert {name for name in commands if f"`{name}" not in text} == set()
