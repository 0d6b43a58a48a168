"""A library of real matches, played once by the engines and kept under var/.

A seeded site (bench/service/_seeded_site.py) must look like a real one: per-game results, units,
faults, timings, seat logs and replay files as the referee writes them. Playing 500,000
matches takes days, so a few real ones per game and table size are played here (house
bots in this process, and each game's seed bots (the registry's) as local processes, so that
their standard error is a real seat log) and the seeder samples them, seating its own
bots in them. The library is built once and cached in var/match-library/, named for a
hash of the engines' sources and of the library's size: it is played again only when an
engine (or the size asked) changed.

A match's replay file is what varies between its copies only by the bots' names and
hashes in the record's header, so each entry keeps its record as JSON in two parts around
that list, each compressed ahead (``ReplayParts``): a copy's gzip file is then spliced
from them in microseconds instead of compressing tens of kilobytes again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import struct
import tempfile
import time
import warnings
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import judge
from judge.bots import policies
from judge.games import GAMES, game_class, seed_files
from judge.players import house_channel, house_seed
from judge.referee import BotInfo, MatchSpec, play_match

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "var" / "match-library"
#: Changed when the entries' form changes (a cached library of another form is rebuilt).
FORM = 2
#: Deals per match, as a tournament plays them by default (games_per_pairing).
DEALS = 2


@dataclass(frozen=True)
class Cell:
    """A game at one table size."""

    game: str
    players: int


def cells(largest: int = 99) -> list[Cell]:
    """Every game of the registry at every table size it allows, up to ``largest``."""
    found: list[Cell] = []
    for name in sorted(GAMES):
        kind = game_class(name)
        top = min(kind.max_players, largest)
        found.extend(Cell(name, n) for n in range(kind.min_players, top + 1))
    return found


def default_players(game: str) -> int:
    return game_class(game).default_players


@dataclass(frozen=True)
class Entry:
    """One real match: what finish_match stores (``outcome``: scores, places, games,
    faults, logs, log_games), its spec and timings, and its record's two parts."""

    game: str
    players: int
    variant: str
    seed: int
    deals: int
    duplicate: bool
    time_control: dict[str, float]
    outcome: dict[str, Any]
    timings: dict[str, float]
    before_bots: str  # the record's JSON up to its header's list of bots
    after_bots: str  # and after it


def library(per_cell: int = 4, largest: int = 99) -> dict[Cell, list[Entry]]:
    """The library of ``per_cell`` matches per game and table size (up to ``largest``
    seats: a test's small site needs no eight-player table): from the cache, or played
    now (and cached)."""
    path = CACHE / f"{_key(per_cell, largest)}.json.gz"
    if not path.exists():
        entries = list(_played(per_cell, largest))
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_bytes(gzip.compress(json.dumps([e.__dict__ for e in entries]).encode()))
        partial.replace(path)
    found: dict[Cell, list[Entry]] = {}
    for raw in json.loads(gzip.decompress(path.read_bytes())):
        entry = Entry(**raw)
        found.setdefault(Cell(entry.game, entry.players), []).append(entry)
    return found


def _key(per_cell: int, largest: int) -> str:
    """A hash of what decides how the matches play (the engines, house bots, referee
    and seed bots: judge/ but its command line and tools) and of the size asked."""
    extra = f":{largest}" if largest != 99 else ""
    digest = hashlib.sha256(f"{FORM}:{per_cell}:{DEALS}{extra}".encode())
    seeds = [path for game in sorted(GAMES) for path in sorted(seed_files(game).values())]
    for path in engine_sources() + seeds:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def engine_sources() -> list[Path]:
    """The sources in judge/ that decide how a match plays (``PLAYS``), in a fixed order."""
    judge_dir = Path(judge.__file__).parent
    return sorted(p for p in judge_dir.rglob("*.py") if p.relative_to(judge_dir).parts[0] in PLAYS)


#: What in judge/ decides how a match plays (the cache's key reads only these).
PLAYS = {
    *("games", "bots", "engine.py", "referee.py", "cards.py", "hands.py", "rng.py"),
    *("players.py", "protocol.py", "channel.py"),
}


def _played(per_cell: int, largest: int) -> Iterator[Entry]:
    """Play the library: in each cell, ``per_cell`` duplicate matches of the game's seed
    bots (as local processes, their standard error the seat's log) in the first seats and
    house bots (a mix of the game's policies) in the rest."""
    from judge.cli.sandboxing import make_backend, prepare_bot, starter

    rng = random.Random(32)
    with warnings.catch_warnings():  # the seed bots are ours: no sandbox needed
        warnings.simplefilter("ignore")
        backend = make_backend("local")
    with tempfile.TemporaryDirectory(prefix="match-library-") as work:
        for cell in cells(largest):
            folder = Path(work) / f"{cell.game}-{cell.players}"
            folder.mkdir()
            found = sorted(seed_files(cell.game).values())[: cell.players]
            seed_bots = [prepare_bot(str(path), cell.game, folder) for path in found]
            started = starter(backend, seed_bots, label="library")
            names = sorted(policies(cell.game))
            for _ in range(per_cell):
                house = [rng.choice(names) for _ in range(cell.players)]
                yield _entry(cell, rng.getrandbits(48), house, seed_bots, started)
            print(f"match library: played {per_cell} matches of {cell.game} at {cell.players}")


def _entry(cell: Cell, seed: int, house: list[str], seed_bots: list[Any], started: Any) -> Entry:
    """Play one match (the seed bots in the first seats) and keep what it stored."""
    spec = MatchSpec(game=cell.game, seed=seed, players=cell.players, games=DEALS, duplicate=True)
    bots = [BotInfo(f"house:{name}", f"house:{cell.game}:{name}") for name in house]
    bots[: len(seed_bots)] = [bot.info for bot in seed_bots]
    sandbox = 0.0

    def start(index: int) -> Any:
        nonlocal sandbox
        if index < len(seed_bots):
            began = time.perf_counter()
            channel = started(index)
            sandbox += time.perf_counter() - began
            return channel
        return house_channel(cell.game, house[index], house_seed(seed, index))

    began = time.perf_counter()
    outcome = play_match(spec, bots, start)
    referee = time.perf_counter() - began - sandbox
    stored = outcome.to_json()
    before, after = _split_record(outcome.record)
    return Entry(
        game=cell.game,
        players=cell.players,
        variant=outcome.variant,
        seed=seed,
        deals=DEALS,
        duplicate=True,
        time_control=outcome.record["header"]["time"],
        outcome={
            k: stored[k] for k in ("scores", "places", "games", "faults", "logs", "log_games")
        },
        timings={"sandbox_start": round(sandbox, 4), "referee": round(referee, 4)},
        before_bots=before,
        after_bots=after,
    )


#: What stands for the list of bots while a record is split around it.
_MARK = "\x00bots\x00"


def _split_record(record: dict[str, Any]) -> tuple[str, str]:
    """The record's compact JSON (as replay_store.compress writes it) before and after
    its header's list of bots."""
    marked = {**record, "header": {**record["header"], "bots": _MARK}}
    text = json.dumps(marked, separators=(",", ":"), ensure_ascii=False)
    before, after = text.split(json.dumps(_MARK), 1)
    return before, after


class ReplayParts:
    """An entry's record, compressed ahead in two raw-deflate parts that a copy's part
    (the list of its bots) is spliced between: each part is flushed to a byte boundary
    with no reference to what came before (Z_FULL_FLUSH, as pigz joins the blocks it
    compresses in parallel), so their concatenation is one valid deflate stream, wrapped
    in a single gzip member (every client reads it)."""

    def __init__(self, entry: Entry) -> None:
        self.before = entry.before_bots.encode()
        self.after = entry.after_bots.encode()
        self.packed_before = _deflated(self.before, zlib.Z_FULL_FLUSH)
        self.packed_after = _deflated(self.after, zlib.Z_FINISH)
        self.crc_before = zlib.crc32(self.before)

    def file(self, bots: Sequence[tuple[str, str]]) -> bytes:
        """The gzip file of the record with ``bots`` ((name, hash) per bot) in its header."""
        middle = json.dumps(
            [{"name": name, "hash": digest} for name, digest in bots],
            separators=(",", ":"),
            ensure_ascii=False,
        ).encode()
        crc = zlib.crc32(self.after, zlib.crc32(middle, self.crc_before))
        size = len(self.before) + len(middle) + len(self.after)
        header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # no name, no time, unknown OS
        trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
        body = _deflated(middle, zlib.Z_FULL_FLUSH)
        return b"".join((header, self.packed_before, body, self.packed_after, trailer))


def _deflated(data: bytes, flush: int) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush(flush)
