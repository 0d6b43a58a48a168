"""Referee and protocol overhead: moves per second through local pipes vs in-process.

The same match (Big Two, two seats, trivial bots that play the first legal action) is
played twice in the same run: with each bot as a local process speaking protocol v1 over
pipes (botkit), and with in-process players (``judge.players``), which still encode and
decode every JSON line. The ratio, and the difference per move, is the cost of the pipes
and the other process; the in-process figure is the engine plus referee plus JSON.

Run: ``python -m bench.engines.referee [--games G] [--repeats R]`` (default about 20 s).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from judge.channel import BotChannel
from judge.cli.sandboxing import prepare_bot, starter
from judge.engine import Action
from judge.players import PolicyChannel
from judge.referee import BotInfo, MatchOutcome, MatchSpec, StartBot, play_match
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per match (default 400)")
    parser.add_argument("--repeats", type=int, default=3, help="matches per figure (best kept)")
    args = parser.parse_args()
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
