"""Real games for fields too wide to hold a library of: played as drawn (issue 47).

bench/_engine_results.py plays every table of a field before a bench runs, and takes as
the truth the fit to all of them. A 4-seat field of 50 bots has 230,300 tables, and the
ladder, exploring, may seat any of them: no library can hold them. Here a table's deals
are played only when a bench draws one: each table has a pool of ``field.deals`` deals
of fixed seeds (deal j of table t is the deal a Library of the same field would play as
its j-th: ``derive_seed(derive_seed(key, *t), j)``), a draw picks j uniformly from the
pool, plays that deal if it is not cached and keeps it (var/engine-results/, one SQLite
file per field and key). The pool is large, so a site gets fresh deals; a run with the
same seed draws the same (table, j) and re-reads them.

The truth is each bot's rating fitted to ``truth_tables`` random tables of the field (one
deal each, drawn from the same pools by a fixed generator): the value a site's fit
converges to if the rating's model (Bradley-Terry on the pairwise results) fits the
real game. ``python -m bench._engine_fresh bigtwo --seats 4 --bots 50 [--jobs 2]`` (or
``fifteen35 --seats 6``) builds (or checks) that sample and prints how well the model fits
it (the pairwise scores against the logistic curve, by rating gap and by blocks of bots)
and the truth's own standard error per bot (the fit's cluster-robust one and one from two
halves).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from bench._engine_results import (
    CACHE,
    WIDE,
    Field,
    _Serial,
    even_steps,
    key,
    play_deal,
    relabel,
)
from judge.rng import derive_seed
from tournaments.rating.model import tournament_fit
from tournaments.rating.model.global_rating import _S
from tournaments.rating.model.results import pairwise
from tournaments.rating.model.units import match_units


@dataclass(frozen=True)
class Wide:
    """A field played as drawn: its game, seats and bots' q, each table's pool of deals
    (``field.deals``) and the random tables the truth is fitted to."""

    field: Field
    truth_tables: int


#: Big Two 4p of 50 bots (q in even steps, as the 2-seat wide field): a duplicate deal
#: (four rotations) costs 20 ms of CPU (44 ms at load 3.6). A pool of 10,000 deals a
#: table; the truth 40,000 random tables (3,200 plays a bot, 160 times a site's 20).
#: Fifteen Thirty-Five 6p of 50 (q in even steps): a duplicate deal (six rotations) costs
#: 120 ms of CPU on a quiet machine; the truth 16,000 random tables (1,920 plays a bot, each
#: against five: the pairs a bot of the Big Two field's truth meets, 9,600).
FRESH_FIELDS = {
    ("bigtwo", 4): Wide(Field("bigtwo", 4, deals=10_000, qs=even_steps(WIDE)), 40_000),
    ("fifteen35", 6): Wide(Field("fifteen35", 6, deals=10_000, qs=even_steps(WIDE)), 16_000),
}

#: Deals the truth's build writes between two commits (a stopped build loses at most these;
#: a deal played as a bench draws it is committed at once).
COMMIT_EVERY = 50


def wide_of(game: str, seats: int, bots: int) -> Wide | None:
    found = FRESH_FIELDS.get((game, seats))
    return found if found is not None and bots == len(found.field.qs) else None


def _play(job: tuple[Field, tuple[int, ...], int]) -> tuple[tuple[int, ...], int, str]:
    field, table, j = job
    deal = play_deal(field, table, derive_seed(derive_seed(key(field), *table), j))
    return table, j, json.dumps(deal, separators=(",", ":"))


class Fresh:
    """A wide field's deals, played as they are drawn and kept."""

    def __init__(self, wide: Wide, bots: int) -> None:
        self.wide, self.field, self.bots = wide, wide.field, bots
        label = f"{self.field.game}-{self.field.seats}p-{bots}"
        self.path = CACHE / f"{label}-fresh-{key(self.field)}.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # a cache: a crash loses deals, not the file
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS deals (tbl TEXT, j INTEGER, result TEXT, "
            "PRIMARY KEY (tbl, j))"
        )
        self.db.commit()
        self.unsaved = 0
        self.played = 0  # deals this process played (the rest were cached)

    def deal(self, table: tuple[int, ...], j: int) -> dict[str, Any]:
        """Deal ``j`` of ``table`` (bot numbers in increasing order), played if missing."""
        name = "-".join(map(str, table))
        row = self.db.execute(
            "SELECT result FROM deals WHERE tbl = ? AND j = ?", (name, j)
        ).fetchone()
        if row is not None:
            return dict(json.loads(row[0]))
        _, _, text = _play((self.field, table, j))
        self._store([(table, j, text)])
        self.db.commit()  # at once: benches of other cells may share this field's cache, and
        self.unsaved = 0  # a write left open would hold them all while this one plays on
        self.played += 1
        return dict(json.loads(text))

    def _store(self, rows: list[tuple[tuple[int, ...], int, str]]) -> None:
        self.db.executemany(
            "INSERT OR IGNORE INTO deals VALUES (?, ?, ?)",
            [("-".join(map(str, t)), j, text) for t, j, text in rows],
        )
        self.unsaved += len(rows)
        if self.unsaved >= COMMIT_EVERY:
            self.db.commit()
            self.unsaved = 0

    def draw(self, table: Sequence[int], rng: random.Random) -> dict[str, Any]:
        """A result of ``table`` (bot per seat, in the order asked): deal j of its pool,
        j uniform, its bot indices renumbered from the stored order to the asked."""
        stored = tuple(sorted(table))
        deal = self.deal(stored, rng.randrange(self.field.deals))
        return relabel(deal, [stored.index(bot) for bot in table])

    def sample(self) -> list[tuple[tuple[int, ...], int]]:
        """The truth's random tables, each with the deal of its pool it plays."""
        rng = random.Random(f"{self.field.label()}:{self.bots}:truth")
        return [
            (
                tuple(sorted(rng.sample(range(self.bots), self.field.seats))),
                rng.randrange(self.field.deals),
            )
            for _ in range(self.wide.truth_tables)
        ]

    def build(self, jobs: int = 1) -> None:
        """Play the truth's deals not cached yet, saying how far it has got."""
        have = {
            (tuple(int(b) for b in t.split("-")), j)
            for t, j in self.db.execute("SELECT tbl, j FROM deals")
        }
        sample = self.sample()
        missing = sorted({s for s in sample if s not in have})
        if not missing:
            return
        print(
            f"engine results: {self.field.label()}, {self.bots} bots, played as drawn: "
            f"{len(missing):,} of the truth's {len(sample):,} deals to play",
            file=sys.stderr,
            flush=True,
        )
        began = time.perf_counter()
        work = [(self.field, t, j) for t, j in missing]
        every = max(1, len(missing) // 20)
        with multiprocessing.Pool(jobs) if jobs > 1 else _Serial() as pool:
            try:
                for count, row in enumerate(pool.imap_unordered(_play, work, 64), 1):
                    self._store([row])
                    if count % every == 0 or count == len(missing):
                        left = (time.perf_counter() - began) / count * (len(missing) - count)
                        print(
                            f"engine results: {count:,}/{len(missing):,} deals, "
                            f"about {left / 60:.0f} min left",
                            file=sys.stderr,
                            flush=True,
                        )
            finally:
                self.db.commit()
                self.unsaved = 0

    def units(
        self, sample: Sequence[tuple[tuple[int, ...], int]] | None = None
    ) -> list[tournament_fit.Placing[int]]:
        """The truth's units (every deal of ``sample``, by default the truth's)."""
        return [
            tournament_fit.Placing(table, places)
            for table, j in (self.sample() if sample is None else sample)
            for places in match_units(len(table), self.deal(table, j), duplicate=True, deals=1)
        ]

    def fits(
        self, sample: Sequence[tuple[tuple[int, ...], int]] | None = None
    ) -> dict[int, tournament_fit.Fit]:
        self.build()
        return tournament_fit.fit_units(self.units(sample), list(range(self.bots)))

    def truth(self) -> dict[int, float]:
        """Each bot's rating fitted to the truth's random tables."""
        return {bot: fit.elo for bot, fit in self.fits().items()}


@cache
def fresh(game: str, seats: int, bots: int) -> Fresh | None:
    """The wide field played as drawn for a cell, if there is one."""
    found = wide_of(game, seats, bots)
    return Fresh(found, bots) if found is not None else None


def goodness(units: Sequence[tournament_fit.Placing[int]], true: dict[int, float]) -> None:
    """The pairwise scores against the logistic curve at the fitted ratings: by the
    pair's rating gap, and by blocks of five bots of neighbouring strength (each group's
    z cluster-robust: a unit's pairs are summed before squaring)."""

    def expected(a: int, b: int) -> float:
        return 1.0 / (1.0 + math.exp(-_S * (true[a] - true[b])))

    order = sorted(true, key=true.__getitem__)
    block = {bot: rank // 5 for rank, bot in enumerate(order)}
    groups: dict[str, dict[Any, list[float]]] = {"gap": {}, "block": {}}
    for unit in units:
        per: dict[tuple[str, Any], list[float]] = {}
        for a, b, score in pairwise(unit.seats, unit.places):
            if true[a] < true[b]:
                a, b, score = b, a, 1.0 - score  # the stronger first
            p = expected(a, b)
            gap = min(int((true[a] - true[b]) // 50), 9)
            for name, group in (("gap", gap), ("block", (block[b], block[a]))):
                cell = per.setdefault((name, group), [0.0, 0.0, 0.0])
                cell[0] += score - p
                cell[1] += 1
                cell[2] += p
        for (name, group), (residual, count, p) in per.items():
            tally = groups[name].setdefault(group, [0.0, 0.0, 0.0, 0.0])
            tally[0] += residual
            tally[1] += residual * residual
            tally[2] += count
            tally[3] += p
    print("pairs by rating gap (Elo): pairs, expected score of the stronger, observed, z")
    for gap, (residual, square, count, p) in sorted(groups["gap"].items()):
        z = residual / math.sqrt(square)
        low = gap * 50
        print(
            f"  {low:>3}-{'' if gap == 9 else low + 50:<4} {int(count):>8,} "
            f"{p / count:.3f} {(p + residual) / count:.3f} {z:+.2f}"
        )
    zs = [r / math.sqrt(s) for r, s, _, _ in groups["block"].values()]
    print(
        f"blocks of 5 bots (by truth), {len(zs)} block pairs: sum z^2 {sum(z * z for z in zs):.1f}"
        f" (about {len(zs) - 9} degrees of freedom), largest |z| {max(map(abs, zs)):.2f}"
    )


def halves(found: Fresh) -> list[float]:
    """Each bot's rating less the mean, fitted to each half of the truth's tables: half
    their difference estimates the whole sample's standard error."""
    sample = found.sample()
    fits = [found.fits(sample[i::2]) for i in range(2)]
    means = [statistics.fmean(f.elo for f in fit.values()) for fit in fits]
    return [
        ((fits[0][b].elo - means[0]) - (fits[1][b].elo - means[1])) / 2 for b in range(found.bots)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted({g for g, _ in FRESH_FIELDS}))
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bots", type=int, default=WIDE)
    parser.add_argument("--jobs", type=int, default=1, help="processes playing deals")
    args = parser.parse_args()
    found = fresh(args.game, args.seats, args.bots)
    if found is None:
        parser.error(f"no field of {args.game} at {args.seats} seats of {args.bots} bots")
    found.build(args.jobs)
    fits = found.fits()
    true = {bot: fit.elo for bot, fit in fits.items()}
    low = true[0]
    errors = dict(enumerate(halves(found)))
    for bot, fit in fits.items():
        print(
            f"bot {bot} (q {found.field.q(bot):.3f}): {fit.elo - low:+.0f} Elo over bot 0, "
            f"standard error {fit.half_width / tournament_fit.Z95:.1f} (halves: "
            f"{abs(errors[bot]):.1f})"
        )
    own = [fit.half_width / tournament_fit.Z95 for fit in fits.values()]
    print(
        f"{len(found.sample()):,} tables, {found.wide.truth_tables * args.seats / args.bots:.0f} "
        f"plays a bot; the field spans {max(true.values()) - low:.0f} Elo; the truth's "
        f"standard error a bot {min(own):.1f}-{max(own):.1f} (fit), "
        f"{math.sqrt(statistics.fmean(e * e for e in errors.values())):.1f} rms (halves)"
    )
    goodness(found.units(), true)


if __name__ == "__main__":
    main()
