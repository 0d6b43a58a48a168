"""What a version's check has tried its bot on: the kinds of situation its game declares
(``Game.situations``: leading a trick, following a pair, facing a bet at the raise cap),
counted per table, and which table to play next to meet the ones still short.

One short game per table size let a bot that crashes whenever the trick is a pair pass
its check and then fault in most of its rated matches (issue 46). The check now plays
its first round (a game at every table size and variant), then further matches, each of
several games in one bot process (a game costs a fraction of a container's start), until
its bot has met every kind SITUATION_TIMES times or the budget is spent: a share of the
first round's time (settings.CHECK_FURTHER_SHARE, 2 by default), so a check takes at most
about three times what one round takes, on a loaded host as on an idle one, and at most
EXTRA_MAX_S more.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judge.games import game_class

#: How many times the check wants its bot to meet each kind of situation.
SITUATION_TIMES = 3
#: The further matches never take more than this many seconds.
EXTRA_MAX_S = 90.0
#: Most games in one further match.
EXTRA_GAMES = 16
#: A game's time is never taken as less than this (a first game too quick to time).
MIN_GAME_S = 0.02

#: A check table: (players, variant), "" for the standard variant.
Table = tuple[int, str]


@dataclass
class TablePlay:
    """What the check has played at one table: its matches, games and the situation
    kinds its bot met there, the slowest start and the mean time a game took."""

    matches: int = 0
    games: int = 0
    met: Counter[str] = field(default_factory=Counter)
    start_s: float = 0.0
    play_s: float = 0.0

    def game_s(self) -> float:
        return max(MIN_GAME_S, self.play_s / self.games) if self.games else math.inf


class Coverage:
    """The situation kinds a check's bot has met, per table, and where to play next."""

    def __init__(self, game: str, tables: list[Table]) -> None:
        self.declared: Mapping[str, str] = game_class(game).situations
        self.tables = {table: TablePlay() for table in tables}

    def add(self, table: Table, summary: Mapping[str, Any]) -> None:
        """Count one check match's summary (its ``games``, ``situations``, ``timing``)."""
        played = self.tables.setdefault(table, TablePlay())
        played.matches += 1
        played.games += summary["games"]
        played.met.update(summary["situations"])
        played.start_s = max(played.start_s, summary["timing"]["start_s"])
        played.play_s += summary["timing"]["play_s"]

    def total(self) -> Counter[str]:
        found: Counter[str] = Counter()
        for played in self.tables.values():
            found.update(played.met)
        return found

    def short(self) -> list[str]:
        """The declared kinds met fewer than SITUATION_TIMES times, in declared order."""
        total = self.total()
        return [kind for kind in self.declared if total[kind] < SITUATION_TIMES]

    def next_table(self) -> Table:
        """The table that met the short kinds most often per game so far (so a kind that
        only large tables bring goes there); with none met anywhere, the least played."""
        short = self.short()

        def promise(table: Table) -> tuple[float, int]:
            played = self.tables[table]
            hits = sum(played.met[kind] for kind in short)
            return (hits / played.games if played.games else 0.0, -played.games)

        return max(self.tables, key=promise)

    def games_within(self, table: Table, seconds: float) -> int:
        """How many games a match at ``table`` can play in ``seconds`` (0: none), judged
        by the slowest start and the mean game there so far."""
        played = self.tables[table]
        room = seconds - played.start_s
        if room <= 0:
            return 0
        return min(EXTRA_GAMES, math.floor(room / played.game_s()))

    def report(self) -> list[dict[str, Any]]:
        """Each declared kind: its words, how often the bot met it, and where."""
        total = self.total()
        return [
            {
                "kind": kind,
                "words": words,
                "times": total[kind],
                "enough": total[kind] >= SITUATION_TIMES,
                "tables": [
                    {"players": players, "variant": variant or "standard", "times": n}
                    for (players, variant), played in self.tables.items()
                    if (n := played.met[kind])
                ],
            }
            for kind, words in self.declared.items()
        ]


def extra_budget(first_round_s: float, share: float) -> float:
    """Seconds the further matches may take after a first round of ``first_round_s``:
    ``share`` times it (settings.CHECK_FURTHER_SHARE), at most EXTRA_MAX_S."""
    return min(EXTRA_MAX_S, share * first_round_s)
