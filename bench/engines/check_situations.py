"""How reliably a version's check meets every kind of situation (issue 46), in-process.

The check's games are played as the service plays them (tournaments.play.version_checks:
a first round of one game per table against ``house:random``, then further matches at the
table check_coverage picks, against ``house:spread``) but with in-process players, so
many checks run in seconds. For each game and each of three checked bots (the first
legal action, the last, a random one) it prints, over ``--seeds`` checks of at most
``--further`` further games, in how many checks each kind was met fewer than
SITUATION_TIMES times and how often it was met on average; then the same with the
shared ``spread`` as the further opponent (the baseline: what the check played before a
game could bring its own), and the ratio of checks that met every kind.

Run: ``python -m bench.engines.check_situations [--seeds N] [--further G] [--games ...]``
(about a minute for 50 seeds).
"""

from __future__ import annotations

import argparse
import functools
import os
import random
from collections import Counter
from typing import Any

from judge.bots import Policy, SpreadPolicy, house_policy
from judge.engine import Action
from judge.games import game_class, new_game
from tournaments.play.check_coverage import SITUATION_TIMES, Coverage, Table


class Nth:
    """A checked bot that always plays the legal action at ``index`` (0 first, -1 last)."""

    def __init__(self, index: int) -> None:
        self.index = index

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        return legal[self.index]


def check_tables(game: str) -> list[Table]:
    """The first round's tables (version_checks.check_tables, which needs Django)."""
    engine = game_class(game)
    sizes = range(engine.min_players, engine.max_players + 1)
    return [(n, "") for n in sizes] + [(engine.min_players, v) for v in engine.variants[1:]]


def play(game: str, table: Table, seed: int, bot: Policy, seat: int, opponent: Any) -> Counter[str]:
    """One game; the situation kinds the checked bot in ``seat`` met."""
    players, variant = table
    engine = game_class(game)
    played = new_game(
        game, seed, players=players, variant=variant or None, options=dict(engine.check_options)
    )
    movers = [bot if s == seat else opponent(seed * 7 + s) for s in range(players)]
    met: Counter[str] = Counter()
    while not played.is_over():
        for acting in played.to_act():
            if acting == seat:
                met.update(played.situation(acting))
            legal = played.legal_actions(acting)
            played.apply(acting, movers[acting].act(played.observation(acting), legal))
    return met


def one_check(game: str, seed: int, bot: Policy, further: int, spread: Any) -> Counter[str]:
    """The kinds one check met: its first round, then further matches of up to 8 games."""
    rnd = random.Random(seed)
    coverage = Coverage(game, check_tables(game))
    timing = {"start_s": 1.0, "play_s": 0.1}

    def random_house(s: int) -> Policy:
        return house_policy(game, "random", s)

    for table in check_tables(game):
        met = play(game, table, rnd.getrandbits(40), bot, rnd.randrange(table[0]), random_house)
        coverage.add(table, {"games": 1, "situations": met, "timing": timing})
    left = further
    while coverage.short() and left > 0:
        table = coverage.next_table()
        games, seat = min(8, left), rnd.randrange(table[0])
        left -= games
        met = Counter()
        for _ in range(games):
            met += play(game, table, rnd.getrandbits(40), bot, seat, spread)
        coverage.add(table, {"games": games, "situations": met, "timing": timing})
    return coverage.total()


def measure(game: str, seeds: int, further: int, spread: Any, label: str) -> int:
    """Print each checked bot's short kinds; return the checks that met every kind."""
    covered = 0
    for name, bot in (("first", Nth(0)), ("last", Nth(-1)), ("random", None)):
        short: Counter[str] = Counter()
        times: Counter[str] = Counter()
        for seed in range(seeds):
            player = bot or house_policy(game, "random", seed)
            total = one_check(game, seed, player, further, spread)
            times.update(total)
            missing = [k for k in game_class(game).situations if total[k] < SITUATION_TIMES]
            short.update(missing)
            covered += not missing
        said = ", ".join(
            f"{kind} {short[kind]}/{seeds} short ({times[kind] / seeds:.1f})"
            for kind in game_class(game).situations
            if short[kind]
        )
        print(f"  {label:14} bot {name:6}: {said or 'every kind met in every check'}")
    return covered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--further", type=int, default=24)
    parser.add_argument("--games", default="bigtwo,fifteen35,oceans11")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.1f} (1 min average, 2 cores)")
    for game in args.games.split(","):
        print(f"{game}: {args.seeds} checks per bot, at most {args.further} further games")
        own_spread = functools.partial(house_policy, game, "spread")
        own = measure(game, args.seeds, args.further, own_spread, "house:spread")
        shared = measure(game, args.seeds, args.further, SpreadPolicy, "shared spread")
        total = 3 * args.seeds
        print(
            f"  every kind met: {own}/{total} checks against {shared}/{total} with the shared "
            f"spread, ratio {own / max(shared, 1):.2f}"
        )
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
