"""``python -m judge play GAME BOT ...``: play a match locally with the server's referee.

BOT is a Python file, a folder or file with an entry file (main.py, main.cpp, main.rs,
Main.java, main.js, main.go), or ``house:NAME``. Prints a table, or with
``--json`` one JSON object (game, variant, seed, bots, scores, places, faults, games).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

from judge.cli.sandboxing import (
    BotSpecError,
    SandboxUnavailable,
    backend_for_cli,
    prepare_bot,
    starter,
)
from judge.engine import GameError
from judge.games import GAMES
from judge.players import house_seed
from judge.referee import MatchOutcome, MatchSpec, TimeControl, play_match


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a match between bots",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("bots", nargs="+", metavar="BOT", help="file.py, folder, or house:NAME")
    parser.add_argument("--variant", help="the game's variant (default: its standard one)")
    parser.add_argument("--players", type=int, help="table size (default: one per BOT)")
    parser.add_argument("--seed", type=int, help="match seed (default: a random one, printed)")
    parser.add_argument("--games", type=int, default=1, help="deals in the match (default 1)")
    parser.add_argument(
        "--duplicate", action="store_true", help="replay each deal with the bots rotated"
    )
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument("--replay", type=Path, metavar="PATH", help="write the match record")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    defaults = TimeControl()
    parser.add_argument("--startup", type=float, default=defaults.startup_s, metavar="S")
    parser.add_argument("--move-time", type=float, default=defaults.move_s, metavar="S")
    parser.add_argument("--bank", type=float, default=defaults.bank_s, metavar="S")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    seed = secrets.randbits(63) if args.seed is None else args.seed
    try:
        spec = _spec(args, seed)
    except ValueError as error:
        return _fail(str(error))
    try:
        outcome = _play(spec, args.bots, args.sandbox)
    except (BotSpecError, GameError, SandboxUnavailable, ValueError, FileNotFoundError) as error:
        return _fail(str(error))
    if args.replay:
        args.replay.write_text(json.dumps(outcome.record) + "\n")
    if args.json:
        print(json.dumps(outcome.to_json()))
    else:
        print(table(outcome))
        if args.replay:
            print(f"record written to {args.replay}")
    return 0


def _spec(args: argparse.Namespace, seed: int) -> MatchSpec:
    return MatchSpec(
        game=args.game,
        seed=seed,
        variant=args.variant,
        players=args.players,
        games=args.games,
        duplicate=args.duplicate,
        time=TimeControl(args.startup, args.move_time, args.bank),
    )


def _play(spec: MatchSpec, bot_args: list[str], sandbox: str) -> MatchOutcome:
    with tempfile.TemporaryDirectory(prefix="judge-play-") as work:
        bots = [
            prepare_bot(arg, spec.game, Path(work), seed=house_seed(spec.seed, index))
            for index, arg in enumerate(bot_args)
        ]
        backend = backend_for_cli(sandbox)
        start = starter(backend, bots, label=f"play-{spec.seed}")
        return play_match(spec, [bot.info for bot in bots], start)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def table(outcome: MatchOutcome) -> str:
    """The outcome as a readable table: one row per bot, best first, with its faults."""
    played = len(outcome.games)
    lines = [f"{outcome.game} ({outcome.variant}), seed {outcome.seed}, {played} game(s)"]
    width = max(len(name) for name in outcome.bots)
    lines.append(f"  {'place':>5}  {'score':>8}  {'bot':<{width}}  faults")
    order = sorted(range(len(outcome.bots)), key=lambda i: (outcome.places[i], i))
    for index in order:
        faults = [f for f in outcome.faults if f.bot == index]
        said = "; ".join(_fault_text(f) for f in faults) or "-"
        lines.append(
            f"  {outcome.places[index]:>5}  {outcome.scores[index]:>8g}  "
            f"{outcome.bots[index]:<{width}}  {said}"
        )
    return "\n".join(lines)


def _fault_text(fault: Any) -> str:
    where = "at start-up" if fault.game is None else f"in game {fault.game}"
    if fault.move is not None:
        where += f" move {fault.move}"
    return f"{fault.kind} {where}: {fault.reason}"
