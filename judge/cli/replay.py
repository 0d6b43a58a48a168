"""``python -m judge replay FILE``: summarize, verify, or re-ask one seat of a match record.

``--verify`` re-simulates every game and checks each result and the totals (exit 1 if
anything differs). ``--seat K BOT`` sends BOT the very messages seat K received and lists
the decisions where its answers differ from the record. ``--bot I BOT`` does the same for
bot I wherever it sat (a duplicate match rotates the seats), with a fresh BOT process for
each seating, as in the match. ``--sandbox docker --lifecycle pool`` starts those
processes as a tournament's worker does (in pooled containers, none serving two seatings).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from judge.cli.lifecycles import LIFECYCLES, close_pool, pooled_backend
from judge.cli.sandboxing import BotSpecError, backend_for_cli, prepare_bot
from judge.engine import GameError
from judge.replay import BadRecord, Difference, compare_bot, compare_seat, verify
from judge.sandbox_bridge import SandboxChannel, SandboxUnavailable, bot_environment
from sandbox.limits import Limits
from sandbox.parallel import SeatStart
from sandbox.pool import PoolTable

StartChannel = Callable[[], SandboxChannel]


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="verify a match record, or replay one seat to a bot",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--verify", action="store_true", help="re-simulate and check")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--seat", nargs=2, metavar=("K", "BOT"), help="replay seat K to BOT")
    who.add_argument(
        "--bot", nargs=2, metavar=("I", "BOT"), help="replay bot I, wherever it sat, to BOT"
    )
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument(
        "--lifecycle",
        choices=LIFECYCLES,
        help="docker only: the containers' lifecycle, as the server's (default fresh)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.lifecycle and args.sandbox != "docker":
            raise ValueError("--lifecycle needs --sandbox docker (the local backend has none)")
        record = json.loads(args.file.read_text())
        if not args.verify and not args.seat and not args.bot:
            print(summary(record))
            return 0
        status = 0
        if args.verify:
            status |= _verify(record)
        if args.seat:
            status |= _seat(record, _whole(args.seat[0], "--seat"), args.seat[1], _sandbox(args))
        if args.bot:
            status |= _bot(record, _whole(args.bot[0], "--bot"), args.bot[1], _sandbox(args))
        return status
    except (OSError, ValueError, KeyError, BadRecord, GameError, SandboxUnavailable) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def summary(record: dict[str, Any]) -> str:
    header = record["header"]
    bots = ", ".join(bot["name"] for bot in header["bots"])
    lines = [
        f"{header['game']} ({header['variant']}), seed {header['seed']}, "
        f"{len(record['games'])} game(s), judge {header['engine_version']}",
        f"bots: {bots}",
        f"scores: {record['result']['scores']}  places: {record['result']['places']}",
    ]
    lines += [f"fault: bot {f['bot']} {f['kind']}: {f['reason']}" for f in record["faults"]]
    return "\n".join(lines)


def _verify(record: dict[str, Any]) -> int:
    problems = verify(record)
    for problem in problems:
        print(f"MISMATCH {problem}")
    if problems:
        return 1
    print(f"verified: {len(record['games'])} game(s) replay to the recorded results")
    return 0


def _whole(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{option} takes a number first, not {text!r}") from None


def _sandbox(args: argparse.Namespace) -> tuple[str, str]:
    """The backend's name and the lifecycle (``fresh`` unless asked)."""
    return args.sandbox, args.lifecycle or "fresh"


@contextlib.contextmanager
def _starter(
    record: dict[str, Any], bot_arg: str, sandbox: tuple[str, str]
) -> Iterator[StartChannel]:
    """A function that starts a fresh process of BOT for this record's game, each call."""
    with tempfile.TemporaryDirectory(prefix="judge-replay-") as work:
        try:
            bot = prepare_bot(bot_arg, record["header"]["game"], Path(work))
        except BotSpecError as error:
            raise ValueError(str(error)) from None
        name, lifecycle = sandbox
        if lifecycle == "pool":
            with _pooled_starter(record, bot.folder) as start:
                yield start
            return
        backend = backend_for_cli(name)

        def start() -> SandboxChannel:
            env = bot_environment(backend)
            return SandboxChannel(
                backend.start(bot.folder, label="replay", limits=Limits(), env=env)
            )

        yield start


@contextlib.contextmanager
def _pooled_starter(record: dict[str, Any], folder: Path) -> Iterator[StartChannel]:
    """Each call a fresh process in a pooled container that served no earlier seating of
    this replay (the worker's rule: no container sees two seatings of one match)."""
    backend = pooled_backend()
    try:
        seatings = max(1, len(record["games"]))
        seat = SeatStart(folder, "replay-bot", Limits())
        identity = frozenset({f"replay:{record['header']['seed']}"})
        table = PoolTable(backend, lambda _index: seat, seatings, "replay-pool", identity)
        try:
            yield lambda: SandboxChannel(table.take([0])[0])
        finally:
            table.close()
    finally:
        close_pool(backend)


def _report(who: str, asked: int, differences: list[Difference]) -> int:
    for difference in differences:
        print(f"DIFFERS {difference}")
    print(f"{who}: {asked} decision(s) asked, {len(differences)} differ")
    return 1 if differences else 0


def _bot(record: dict[str, Any], index: int, bot_arg: str, sandbox: tuple[str, str]) -> int:
    bots = len(record["header"]["bots"])
    if not 0 <= index < bots:
        raise ValueError(f"bot {index} does not exist; the match has bots 0 to {bots - 1}")
    with _starter(record, bot_arg, sandbox) as start:
        asked, differences = compare_bot(record, index, start, time.monotonic)
    return _report(f"bot {index}", asked, differences)


def _seat(record: dict[str, Any], seat: int, bot_arg: str, sandbox: tuple[str, str]) -> int:
    players = record["header"]["players"]
    if not 0 <= seat < players:
        raise ValueError(f"seat {seat} does not exist; the table has seats 0 to {players - 1}")
    with _starter(record, bot_arg, sandbox) as start:
        channel = start()
        try:
            asked, differences = compare_seat(record, seat, channel, time.monotonic)
        finally:
            channel.close()
    return _report(f"seat {seat}", asked, differences)
