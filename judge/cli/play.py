"""``python -m judge play GAME BOT ...``: play a match locally with the server's referee.

BOT is a Python file, a folder or file with an entry file (main.py, main.cpp, main.rs,
Main.java, main.js, main.go), or ``house:NAME``. Prints a table, or with
``--json`` one JSON object (game, variant, seed, bots, scores, places, faults, games).
``--option KEY=VALUE`` (repeatable) sets one of the game's options, within the bounds
the server keeps (listed below).

``--sandbox docker --lifecycle pool`` runs the bots as a tournament's worker does
(containers kept across matches, a fresh process per seating); ``--matches N`` plays N
matches in this one process (seeds SEED, SEED+1, ...; one table or JSON line each, then
the time they took on standard error), so the pool serves the later ones.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from judge.cli.game_options import add_setting_arguments, options_help, parse_options
from judge.cli.lifecycles import LIFECYCLES, PooledMatch, close_pool, pooled_backend
from judge.cli.sandboxing import BotSpecError, backend_for_cli, prepare_bot
from judge.engine import GameError
from judge.games import GAMES, game_class
from judge.players import house_seed
from judge.referee import MatchOutcome, MatchSpec, TimeControl, play_match
from judge.sandbox_bridge import SandboxUnavailable, starter
from sandbox.backend import Backend
from sandbox.pool import Pools


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a match between bots",
        description=__doc__,
        epilog=options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("bots", nargs="+", metavar="BOT", help="file.py, folder, or house:NAME")
    add_setting_arguments(parser)
    parser.add_argument("--players", type=int, help="table size (default: one per BOT)")
    parser.add_argument("--seed", type=int, help="match seed (default: a random one, printed)")
    parser.add_argument("--games", type=int, default=1, help="deals in the match (default 1)")
    parser.add_argument(
        "--duplicate", action="store_true", help="replay each deal with the bots rotated"
    )
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument(
        "--lifecycle",
        choices=LIFECYCLES,
        help="docker only: the containers' lifecycle, as the server's (default fresh)",
    )
    parser.add_argument("--matches", type=int, default=1, help="matches to play (default 1)")
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
        _spec(args, seed)
        _check(args)
        backend = _backend(args)
    except (SandboxUnavailable, ValueError) as error:
        return _fail(str(error))
    began = time.perf_counter()
    try:
        for number in range(args.matches):
            _show(args, _play(_spec(args, seed + number), args.bots, backend, args.lifecycle))
    except (BotSpecError, GameError, SandboxUnavailable, ValueError, FileNotFoundError) as error:
        return _fail(str(error))
    finally:
        close_pool(backend)
    if args.matches > 1:
        took = time.perf_counter() - began
        each = f"{args.matches} matches in {took:.1f} s ({took / args.matches:.2f} s each)"
        print(each + _pool_text(backend), file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> None:
    if args.lifecycle and args.sandbox != "docker":
        raise ValueError("--lifecycle needs --sandbox docker (the local backend has none)")
    if not 1 <= args.matches <= 10_000:
        raise ValueError(f"--matches must be from 1 to 10000, not {args.matches}")
    if args.replay and args.matches > 1:
        raise ValueError("--replay writes one match's record: use it with --matches 1")


def _backend(args: argparse.Namespace) -> Backend:
    if args.lifecycle == "pool":
        backend: Backend = pooled_backend()
        return backend
    return backend_for_cli(args.sandbox)


def _show(args: argparse.Namespace, outcome: MatchOutcome) -> None:
    if args.replay:
        args.replay.write_text(json.dumps(outcome.record) + "\n")
    if args.json:
        print(json.dumps(outcome.to_json()), flush=True)
    else:
        print(table(outcome), flush=True)
        if args.replay:
            print(f"record written to {args.replay}")


def _spec(args: argparse.Namespace, seed: int) -> MatchSpec:
    return MatchSpec(
        game=args.game,
        seed=seed,
        variant=args.variant,
        players=args.players,
        games=args.games,
        duplicate=args.duplicate,
        options=parse_options(game_class(args.game), args.option),
        time=TimeControl(args.startup, args.move_time, args.bank),
    )


def _play(
    spec: MatchSpec, bot_args: list[str], backend: Backend, lifecycle: str | None
) -> MatchOutcome:
    with tempfile.TemporaryDirectory(prefix="judge-play-") as work:
        pooled = lifecycle == "pool"
        bots = [  # pooled house bots get their seed per seating: one folder for all matches
            prepare_bot(arg, spec.game, Path(work), seed=0 if pooled else house_seed(spec.seed, i))
            for i, arg in enumerate(bot_args)
        ]
        label = f"play-{spec.seed}"
        if not (pooled and isinstance(backend, Pools)):
            return play_match(spec, [bot.info for bot in bots], starter(backend, bots, label=label))
        match = PooledMatch(backend, bots, spec, label)
        try:
            return play_match(spec, [b.info for b in bots], match.start, announce=match.announce)
        finally:
            match.close()


def _pool_text(backend: Backend) -> str:
    pool = getattr(backend, "pool", None)
    if pool is None or not (pool.hits or pool.misses):
        return ""
    return f"; pool: {pool.hits} containers reused, {pool.misses} started"


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
