"""Referee and protocol overhead: the referee's own CPU per move, and pipes vs in-process.

**The referee's own cost** (issue 45; first part). Per game (Oceans 11 at 2 seats, Big
Two at 4, Fifteen Thirty-Five at 6, duplicate: every deal in every seating), the same
deals and the same choices (each seat plays the first legal action) are played:

- by the engine alone (``to_act``, ``legal_actions``, ``apply``: what any way of playing
  costs), then with each decision's ``observation`` built too (what a bot must be shown);
- through the referee (``play_match``) with channels that answer at once without
  decoding anything (index 0), so all that is measured is the referee's work: the act
  message built and encoded, the answer decoded and checked, the clocks, the game-over
  messages, the record; once with the protocol's codec as it was before issue 45 (a new
  JSON encoder and decoder per message, ``json.dumps``/``json.loads`` with options),
  once as it is.

Printed per game: CPU microseconds per move of each, the referee's own share (its total
less the engine and the observations), the ratio before/after, and the engine calls per
decision (``legal_actions``, ``observation``, ``to_act``, ``why_illegal`` ...), counted.

**Pipes** (second part). The same match (Big Two, two seats, trivial bots that play the
first legal action) is played twice in the same run: with each bot as a local process
speaking protocol v1 over pipes (botkit), and with in-process players (``judge.players``),
which still encode and decode every JSON line. The ratio, and the difference per move, is
the cost of the pipes and the other process.

Run: ``python -m bench.engines.referee [--games G] [--repeats R] [--deals D] [--part
cost|pipes|both]`` (default about a minute).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from unittest import mock

from judge import protocol
from judge.channel import BotChannel, BotTimeout
from judge.cli.sandboxing import prepare_bot, starter
from judge.engine import Action, Game
from judge.games import new_game
from judge.players import PolicyChannel
from judge.referee import BotInfo, MatchOutcome, MatchSpec, StartBot, play_match, rotations
from judge.rng import derive_seed
from sandbox.local import LocalBackend, NotASandboxWarning

GAME = "bigtwo"
TRIVIAL_BOT = "import botkit\n\nbotkit.run(lambda observation, legal: 0)\n"


class FirstLegal:
    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        return legal[0]


def moves(outcome: MatchOutcome) -> int:
    return sum(len(g["record"]["actions"]) for g in outcome.record["games"])


def timed(spec: MatchSpec, bots: list[BotInfo], start: StartBot) -> tuple[float, int]:
    began = time.perf_counter()
    outcome = play_match(spec, bots, start)
    elapsed = time.perf_counter() - began
    assert not outcome.faults, outcome.faults
    return elapsed, moves(outcome)


def in_process(spec: MatchSpec) -> tuple[float, int]:
    def start(index: int) -> BotChannel:
        return PolicyChannel(FirstLegal())

    return timed(spec, [BotInfo("first"), BotInfo("first")], start)


def through_pipes(spec: MatchSpec, work: Path) -> tuple[float, int]:
    work.mkdir(parents=True, exist_ok=True)
    source = work / "trivial.py"
    source.write_text(TRIVIAL_BOT)
    folder = work / "bots"
    folder.mkdir(exist_ok=True)
    bots = [prepare_bot(str(source), GAME, folder) for _ in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        backend = LocalBackend()
    return timed(spec, [b.info for b in bots], starter(backend, bots, label="bench"))


COST_GAMES = (("oceans11", 2), ("bigtwo", 4), ("fifteen35", 6))
READY = b'{"type":"ready"}'
FIRST = b'{"type":"action","action":0}'
#: Engine calls counted per decision.
COUNTED = ("to_act", "legal_actions", "observation", "is_over", "why_illegal", "revealed")


class Instant:
    """A bot that answers at once without reading: ready to hello, index 0 to act."""

    def __init__(self) -> None:
        self.waiting: list[bytes] = []

    def send(self, line: bytes) -> None:
        if line.startswith(b'{"type":"hello"'):
            self.waiting.append(READY)
        elif line.startswith(b'{"type":"act"'):
            self.waiting.append(FIRST)

    def recv(self, deadline: float) -> bytes:
        if self.waiting:
            return self.waiting.pop()
        raise BotTimeout("nothing to say")

    def stderr(self) -> bytes:
        return b""

    def close(self) -> None:
        pass


def _old_encode(message: Mapping[str, Any]) -> bytes:
    """``protocol.encode`` before issue 45 (a new encoder per message)."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")


def _old_decode(line: bytes) -> Any:
    """``protocol.decode`` before issue 45 (a new decoder per message)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise protocol.BadAnswer(protocol.NOT_UTF8, f"not UTF-8 ({error.reason})") from None
    try:
        return json.loads(text, parse_constant=protocol._reject_constant)
    except (ValueError, RecursionError) as error:
        raise protocol.BadAnswer(protocol.NOT_JSON, f"not one JSON value ({error})") from None


@contextlib.contextmanager
def before_issue_45() -> Iterator[None]:
    """The referee's per-message path as it was: the old codec, and every action applied
    through the game's full check (``apply``, not ``apply_listed``)."""
    with (
        mock.patch.object(protocol, "encode", _old_encode),
        mock.patch.object(protocol, "decode", _old_decode),
        mock.patch.object(Game, "apply_listed", Game.apply),
    ):
        yield


def engine_alone(name: str, players: int, deals: int, observe: bool) -> tuple[float, int]:
    """CPU seconds and moves of the match's deals in every seating, first legal action."""
    began, moves = time.process_time(), 0
    for _ in rotations(players):
        for deal in range(deals):
            game = new_game(name, derive_seed(1, deal), players=players)
            while not game.is_over():
                seat = game.to_act()[0]
                legal = game.legal_actions(seat)
                if observe:
                    game.observation(seat)
                game.apply(seat, legal[0])
                moves += 1
    return time.process_time() - began, moves


def refereed(
    name: str, players: int, deals: int, counts: Counter[str] | None = None
) -> tuple[float, int]:
    """CPU seconds and moves of the same match through the referee (instant bots)."""
    spec = MatchSpec(name, seed=1, players=players, games=deals, duplicate=True)
    maker: Callable[..., Game] | None = None
    if counts is not None:

        def maker(seed: int, n: int, variant: str | None, options: Mapping[str, Any]) -> Game:
            game = new_game(name, seed, players=n, variant=variant, options=options)
            for method in COUNTED:
                setattr(game, method, _counting(getattr(game, method), method, counts))
            return game

    bots = [BotInfo(f"instant{i}") for i in range(players)]
    began = time.process_time()
    outcome = play_match(spec, bots, lambda index: Instant(), make_game=maker)
    assert not outcome.faults, outcome.faults
    return time.process_time() - began, moves(outcome)


def _counting(method: Callable[..., Any], name: str, counts: Counter[str]) -> Callable[..., Any]:
    def counted(*args: Any) -> Any:
        counts[name] += 1
        return method(*args)

    return counted


def referee_cost(deals: int, repeats: int) -> None:
    print(f"the referee's own CPU per move (instant bots, {deals} deals a seating, duplicate, "
          f"best of {repeats}; load {os.getloadavg()[0]:.1f})")  # fmt: skip
    heads = ("engine", "+obs", "before", "after", "own before", "own after", "ratio")
    widths = (7, 7, 7, 7, 10, 9, 6)
    columns = " ".join(f"{head:>{width}}" for head, width in zip(heads, widths, strict=True))
    print(f"  {'game':18} {columns}   calls a decision (after)")
    for name, players in COST_GAMES:
        best: dict[str, float] = {}
        count = 0
        for _ in range(repeats):
            for key in ("engine", "observed", "before", "after"):
                if key in ("engine", "observed"):
                    seconds, count = engine_alone(name, players, deals, key == "observed")
                elif key == "before":
                    with before_issue_45():
                        seconds, count = refereed(name, players, deals)
                else:
                    seconds, count = refereed(name, players, deals)
                best[key] = min(best.get(key, float("inf")), seconds)
        calls: Counter[str] = Counter()
        decisions = refereed(name, players, deals, calls)[1]
        per = {key: value / count * 1e6 for key, value in best.items()}
        own_before, own_after = per["before"] - per["observed"], per["after"] - per["observed"]
        listed = ", ".join(f"{method} {calls[method] / decisions:.2f}" for method in COUNTED)
        print(f"  {name + f' ({players})':18} {per['engine']:6.1f}u {per['observed']:6.1f}u "
              f"{per['before']:6.1f}u {per['after']:6.1f}u  {own_before:9.1f}u {own_after:8.1f}u "
              f"{own_before / max(own_after, 1e-9):5.2f}x   {listed}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per match (default 400)")
    parser.add_argument("--repeats", type=int, default=3, help="matches per figure (best kept)")
    parser.add_argument("--deals", type=int, default=8, help="deals a seating (the cost part)")
    parser.add_argument("--part", choices=("cost", "pipes", "both"), default="both")
    args = parser.parse_args()
    if args.part in ("cost", "both"):
        referee_cost(args.deals, args.repeats)
    if args.part == "cost":
        return
    spec = MatchSpec(GAME, seed=1, players=2, games=args.games)
    best_pipe = best_local = float("inf")
    with tempfile.TemporaryDirectory() as work:
        for repeat in range(args.repeats):
            seconds, count = through_pipes(spec, Path(work) / str(repeat))
            best_pipe = min(best_pipe, seconds)
            seconds_local, count_local = in_process(spec)
            best_local = min(best_local, seconds_local)
            assert count == count_local
    pipe_rate, local_rate = count / best_pipe, count / best_local
    overhead_us = (best_pipe - best_local) / count * 1e6
    print(f"match: {GAME}, 2 seats, {args.games} games, {count} moves (best of {args.repeats})")
    print(f"  in-process players (baseline):   {local_rate:10.0f} moves/s")
    print(
        f"  local processes over pipes:      {pipe_rate:10.0f} moves/s"
        f"   ratio {pipe_rate / local_rate:.2f}x"
    )
    print(f"  pipes + bot process cost per move: {overhead_us:.0f} us (incl. start-up)")


if __name__ == "__main__":
    main()
