"""``python -m judge duel GAME A B``: is B stronger than A? A sequential test, run locally.

Plays duplicate pairs with the server's referee (each deal twice, B and A swapped between
symmetric seats, the panel's bots in the other seats of a larger table) until the SPRT
accepts H0 ("B is at most ELO0 stronger") or H1 ("B is at least ELO1 stronger"), or the
game cap is reached. After every round of ``--pairs-per-round`` pairs it prints the
pairs' counts, B's score, the log-likelihood ratio against its bounds and, at the end,
the decision and B's Elo over A with a 95% interval that allows for when the test
stopped (judge.duel.stopped). ``--json`` prints one JSON object
per round instead; ``--chart PATH`` rewrites the LLR chart (SVG) after each round.
A and B are what ``play`` takes: a .py file, a folder with an entry file, or house:NAME.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

from judge.cli.game_options import add_setting_arguments, options_help, parse_options
from judge.cli.lifecycles import close_pool
from judge.cli.sandboxing import BotSpecError, backend_for_cli, prepare_bot
from judge.duel.chart import llr_svg
from judge.duel.pairs import seatings, seed_slots
from judge.duel.sprt import Decision, Sprt
from judge.duel.state import DuelState
from judge.engine import GameError
from judge.games import GAMES, game_class
from judge.players import house_seed
from judge.referee import MatchSpec, TimeControl, play_match
from judge.sandbox_bridge import SandboxUnavailable, starter
from sandbox.backend import Backend

#: Most pairs one round may play (both of its matches hold that many games).
MAX_PAIRS_PER_ROUND = 100


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "duel",
        help="is B stronger than A? duplicate pairs until a sequential test decides",
        description=__doc__,
        epilog=options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    defaults = Sprt()
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("a", metavar="A", help="the baseline: file.py, folder, or house:NAME")
    parser.add_argument("b", metavar="B", help="the challenger, as A")
    parser.add_argument("--panel", default="house:greedy", help="bot of the other seats")
    parser.add_argument("--players", type=int, help="table size (default: the game's)")
    add_setting_arguments(parser)
    parser.add_argument("--seed", type=int, help="first round's seed (default: random, printed)")
    parser.add_argument("--elo0", type=float, default=defaults.elo0, help="H0's Elo (default 0)")
    parser.add_argument("--elo1", type=float, default=defaults.elo1, help="H1's Elo (default 20)")
    parser.add_argument("--alpha", type=float, default=defaults.alpha, help="default 0.05")
    parser.add_argument("--beta", type=float, default=defaults.beta, help="default 0.05")
    parser.add_argument(
        "--max-games", type=int, default=defaults.max_games, help="game cap, even (default 4000)"
    )
    parser.add_argument("--pairs-per-round", type=int, default=10, help="default 10")
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument("--json", action="store_true", help="one JSON object per round")
    parser.add_argument(
        "--chart", type=Path, metavar="PATH", help="write the LLR chart (SVG) after each round"
    )
    times = TimeControl()
    parser.add_argument("--startup", type=float, default=times.startup_s, metavar="S")
    parser.add_argument("--move-time", type=float, default=times.move_s, metavar="S")
    parser.add_argument("--bank", type=float, default=times.bank_s, metavar="S")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta, args.max_games)
        players = _players(args)
        args.options = parse_options(game_class(args.game), args.option)
        TimeControl(args.startup, args.move_time, args.bank)
        if not 1 <= args.pairs_per_round <= MAX_PAIRS_PER_ROUND:
            raise ValueError(
                f"--pairs-per-round must be from 1 to {MAX_PAIRS_PER_ROUND}, "
                f"not {args.pairs_per_round}"
            )
        backend = backend_for_cli(args.sandbox)
    except (SandboxUnavailable, GameError, ValueError) as error:
        return _fail(str(error))
    seed = secrets.randbits(62) if args.seed is None else args.seed
    if not args.json:
        print(_heading(args, test, players, seed), flush=True)
    try:
        decision = _duel(args, test, players, seed, backend)
    except (BotSpecError, GameError, SandboxUnavailable, ValueError, FileNotFoundError) as error:
        return _fail(str(error))
    finally:
        close_pool(backend)
    return 0 if decision in (Decision.H0, Decision.H1) else 1


def _players(args: argparse.Namespace) -> int:
    """The table size: ``--players`` within the game's range, or the game's default."""
    cls = game_class(args.game)
    players = cls.default_players if args.players is None else args.players
    if not cls.min_players <= players <= cls.max_players:
        raise ValueError(
            f"{args.game} is played by {cls.min_players} to {cls.max_players} players, "
            f"not {players}"
        )
    return players


def _heading(args: argparse.Namespace, test: Sprt, players: int, seed: int) -> str:
    panel = f", panel {args.panel}" if players > 2 else ""
    return (
        f"duel {args.game}: B {args.b} against A {args.a}, {players} players{panel}; seed {seed}\n"
        f"H0: B is at most {test.elo0:g} Elo stronger, H1: at least {test.elo1:g} "
        f"(alpha {test.alpha:g}, beta {test.beta:g}); cap {test.max_games or 'none'} games"
    )


def _duel(
    args: argparse.Namespace, test: Sprt, players: int, seed: int, backend: Backend
) -> Decision:
    """Rounds of pairs until the test decides or the cap is reached; the decision."""
    state = DuelState(test)
    while pairs := state.pairs_next(args.pairs_per_round):
        first, second = _round(args, players, seed + len(state.history), pairs, backend)
        state = state.record_round(first, second)
        if args.chart:
            args.chart.write_text(llr_svg(state.history, test.lower, test.upper, test.max_games))
        _report(args, state)
    return state.decision


def _round(
    args: argparse.Namespace, players: int, seed: int, pairs: int, backend: Backend
) -> tuple[list[list[float]], list[list[float]]]:
    """Each game's scores in the round's two matches: ``pairs`` deals, B and A swapped."""
    spec = MatchSpec(
        game=args.game,
        seed=seed,
        variant=args.variant,
        players=players,
        options=args.options,
        games=pairs,
        time=TimeControl(args.startup, args.move_time, args.bank),
    )
    first, second = seatings(players, args.b, args.a, args.panel)
    return (
        _game_scores(spec, first, seed_slots(players, 0), backend),
        _game_scores(spec, second, seed_slots(players, 1), backend),
    )


def _game_scores(
    spec: MatchSpec, seating: list[str], slots: list[int], backend: Backend
) -> list[list[float]]:
    """Each game's scores, seat by seat, of one match with ``seating``'s bots (a house
    bot's seed is the one of seat ``slots[seat]``: see ``seed_slots``)."""
    with tempfile.TemporaryDirectory(prefix="judge-duel-") as work:
        bots = [
            prepare_bot(arg, spec.game, Path(work), seed=house_seed(spec.seed, slots[seat]))
            for seat, arg in enumerate(seating)
        ]
        outcome = play_match(
            spec, [bot.info for bot in bots], starter(backend, bots, label=f"duel-{spec.seed}")
        )
    return [list(game["result"]["scores"]) for game in outcome.games]


def _report(args: argparse.Namespace, state: DuelState) -> None:
    if args.json:
        print(json.dumps(state.to_json()), flush=True)
        return
    penta, test = state.penta, state.test
    points = penta.mean() * penta.games
    print(
        f"pairs {penta.pairs:>5} ({penta.games} games)  B {points:g}-{penta.games - points:g} "
        f"({100 * penta.mean():.1f}%)  pairs 0..2: {','.join(map(str, penta.counts))}  "
        f"LLR {state.llr:+.2f} [{test.lower:.2f}, {test.upper:.2f}]",
        flush=True,
    )
    if state.decision is not Decision.RUNNING:
        print(state.verdict())


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2
