"""The house-bot ladder: greedy beats random, montecarlo beats greedy, and by how much.

For each game, two-player matches between house bots (in-process players through the
referee, the same code paths as processes) give:

- the Elo difference of the stronger bot over the weaker, with its 95% interval, from
  the score per game (win 1, draw 1/2, loss 0, by place);
- how many games it takes for that interval to exclude zero (estimated from the measured
  mean and spread, normal approximation), without duplicate deals
  (independent deals, seats alternating) and with them (each deal played twice with the
  seats swapped, scored as a pair). The ratio between the two is what duplicate deals
  save: the luck of the cards cancels within a pair, so fewer games should be needed
  (how many fewer depends on how much of a game's outcome the deal decides).

Each pairing plays for ``--seconds`` in each mode (default 8: about 70 seconds in all
for four pairings). For tighter intervals run longer, e.g.
``python -m bench.engines.house_ladder --seconds 120`` (about 20 minutes), or pick pairings with
``--only oceans11``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass

from judge.bots import policies
from judge.games import GAMES, game_class
from judge.players import house_players
from judge.referee import MatchSpec, play_match
from judge.rng import derive_seed

Z95 = 1.959964


@dataclass(frozen=True)
class Sample:
    """Per-unit scores of the strong bot (a game, or a duplicate pair of games)."""

    units: list[float]
    games: int

    @property
    def mean(self) -> float:
        return statistics.fmean(self.units)

    @property
    def stdev(self) -> float:
        return statistics.stdev(self.units) if len(self.units) > 1 else 0.5

    def interval(self) -> tuple[float, float]:
        half = Z95 * self.stdev / math.sqrt(len(self.units))
        return self.mean - half, self.mean + half

    def games_to_exclude_zero(self) -> float:
        """Games for the 95% interval of the mean to exclude 1/2, at this mean and spread."""
        edge = abs(self.mean - 0.5)
        if edge == 0:
            return math.inf
        units = (Z95 * self.stdev / edge) ** 2
        return units * self.games / len(self.units)


def elo(score: float) -> float:
    """The Elo difference that predicts an expected score ``score``."""
    clipped = min(max(score, 1e-4), 1 - 1e-4)
    return -400 * math.log10(1 / clipped - 1)


def strong_score(places: list[int]) -> float:
    """The strong bot's score from [its place, the other's place]: 1, 1/2 or 0."""
    return 1.0 if places[0] < places[1] else 0.5 if places[0] == places[1] else 0.0


def games(game: str, strong: str, weak: str, duplicate: bool, tag: int) -> Iterator[float]:
    """Endless per-unit scores of ``strong`` against ``weak``."""
    for index in range(10**9):
        seed = derive_seed("ladder", game, strong, weak, tag, index)
        if duplicate:
            names = [strong, weak]
        else:  # alternate seats so the first seat's edge cancels
            names = [strong, weak] if index % 2 == 0 else [weak, strong]
        bots, start = house_players(game, names, seed)
        outcome = play_match(MatchSpec(game, seed, players=2, duplicate=duplicate), bots, start)
        strong_bot = names.index(strong)
        scores = []
        for played in outcome.games:  # one game, or the two games of a duplicate pair
            seat_of = played["seating"].index
            places = played["result"]["places"]
            scores.append(
                strong_score([places[seat_of(strong_bot)], places[seat_of(1 - strong_bot)]])
            )
        yield statistics.fmean(scores)


def sample(game: str, strong: str, weak: str, duplicate: bool, seconds: float) -> Sample:
    units: list[float] = []
    began = time.perf_counter()
    for score in games(game, strong, weak, duplicate, tag=1):
        units.append(score)
        if time.perf_counter() - began >= seconds and len(units) >= 10:
            break
    return Sample(units, len(units) * (2 if duplicate else 1))


def report(game: str, strong: str, weak: str, seconds: float) -> None:
    plain = sample(game, strong, weak, duplicate=False, seconds=seconds)
    paired = sample(game, strong, weak, duplicate=True, seconds=seconds)
    print(f"{game}: {strong} vs {weak}")
    for label, result in (("independent deals", plain), ("duplicate deals  ", paired)):
        low, high = result.interval()
        print(
            f"  {label}: {result.games:5d} games, score {result.mean:.3f}, "
            f"Elo {elo(result.mean):+6.0f} [95%: {elo(low):+6.0f} .. {elo(high):+6.0f}], "
            f"games for the interval to exclude 0: {result.games_to_exclude_zero():7.1f}"
        )
    ratio = plain.games_to_exclude_zero() / paired.games_to_exclude_zero()
    print(f"  duplicate deals need {ratio:.1f}x fewer games (independent = baseline)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="per pairing and mode")
    parser.add_argument("--only", choices=sorted(GAMES), help="one game only")
    args = parser.parse_args()
    for game in sorted(GAMES) if args.only is None else [args.only]:
        try:
            game_class(game)
        except ImportError:
            print(f"{game}: no engine yet, skipped")
            continue
        found = policies(game)
        if "greedy" in found:
            report(game, "greedy", "random", args.seconds)
        if "montecarlo" in found:
            report(game, "montecarlo", "greedy", args.seconds)


if __name__ == "__main__":
    main()
