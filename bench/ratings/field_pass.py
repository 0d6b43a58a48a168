"""The field pass at the size of a big site: one game's whole field refitted and every bot's
joint deviation stored (tournaments.rating.stored.field_view.refresh), on PostgreSQL.

Seeds a scratch database with one game's rated field as the service stores it: ``--bots``
bots (default 2,500), each with one rated version, its ``Rating`` row and its records
(``RatingRecord``, one per opponent met, mirrored on the opponent's side), and ``--matches``
recent rated 4-seat matches among neighbours (default 20,000, the pass's sample,
``field_store.RECENT_MATCHES``). Who met whom is
shaped like a ladder that also explores and plays tournaments: each bot met its ``--near``
neighbours by strength and ``--far`` bots drawn at random, ``--games`` results per pair
(defaults 40, 20, 8: about 98,000 pairs, 197,000 records, 790,000 pairwise results, the
results of roughly 400,000 two-seat matches; a 6-seat match holds 15 pairs). Then it
times one pass, split into its steps: loading and refitting the field with the stored
dispersions (``field_store.game_field``), reading the recent units, the refit with the
dispersion they show (``field_dispersion.measured_field``: a refit and an inversion more),
every bot's joint deviation at once
(``field_deviations.against_mean``: exact by one dense inversion up to 3,000 bots, probed
above) and storing the rows.

Then the deviations against exact ones: ``--sample`` bots' exact solves (their time per bot,
extrapolated to the field, is the baseline), and up to 6,000 bots every bot's probed
deviation against the dense inversion's: the largest and mean relative differences.

Then the leaderboard's rows as its view reads them (ordered by the rating shown, the field
view's: a scan of the game's rated bots), top page and deepest, against the former order
by the stored rating (an index range), p50 of 20, with their ratio.

Run: ``python -m bench.ratings.field_pass [--bots N] [--near N] [--far N] [--sample N]``
(PostgreSQL as for the tests).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import resource
import time
from typing import Any

from bench._service import configure, scratch_database

GAME = "bigtwo"


def seed(bots: int, near: int, far: int, games: int, matches: int, rng: random.Random) -> int:
    """The rated field in the scratch database, with ``matches`` recent rated matches;
    how many records."""
    from tournaments.models import Bot, BotVersion, Rating, RatingRecord
    from tournaments.rating.model.global_rating import _S
    from tournaments.rating.stored.bulk_rows import write_rows

    truth = sorted(rng.gauss(1500.0, 300.0) for _ in range(bots))
    made = Bot.objects.bulk_create(Bot(game=GAME, name=f"field-{k}") for k in range(bots))
    versions = BotVersion.objects.bulk_create(
        BotVersion(bot=bot, number=1, content_hash=f"h{bot.pk}", status="accepted") for bot in made
    )
    BotVersion.objects.update(ever_rated=True)
    estimate = [t + rng.gauss(0.0, 60.0) for t in truth]
    records: list[tuple[int, int, float, float, float]] = []
    information = [0.0] * bots
    for a, b in pairs(bots, near, far, rng):
        p = 1.0 / (1.0 + math.exp(_S * (truth[b] - truth[a])))
        won = float(sum(rng.random() < p for _ in range(games)))
        records.append((made[a].pk, versions[b].pk, games, won, estimate[b]))
        records.append((made[b].pk, versions[a].pk, games, games - won, estimate[a]))
        for k in (a, b):
            information[k] += _S * _S * games * p * (1.0 - p)
    Rating.objects.bulk_create(
        rating_row(bot, estimate[k], information[k]) for k, bot in enumerate(made)
    )
    fields = ("bot_id", "opponent_id", "results", "score", "seen")
    written = write_rows(RatingRecord, fields, records)
    recent_matches(versions, truth, matches, rng)
    return written


def recent_matches(versions: list[Any], truth: list[float], count: int, rng: random.Random) -> None:
    """``count`` rated 4-seat matches among near neighbours, stored as the service stores
    them (result, seats, rating order): what the pass measures the dispersion on."""
    from tournaments.models import Match, Seat

    tables = []
    for _ in range(count):
        first = rng.randrange(len(versions) - 8)
        table = rng.sample(range(first, first + 8), 4)
        performance = {k: truth[k] / 200.0 + rng.gauss(0.0, 1.0) for k in table}
        order = sorted(table, key=performance.__getitem__, reverse=True)
        tables.append((table, [order.index(k) + 1 for k in table]))
    made = Match.objects.bulk_create(
        Match(game=GAME, status="done", rating_seq=n + 1, result={"places": places})
        for n, (_, places) in enumerate(tables)
    )
    Seat.objects.bulk_create(
        Seat(match=match, index=i, version=versions[k])
        for match, (table, _) in zip(made, tables, strict=True)
        for i, k in enumerate(table)
    )


def pairs(bots: int, near: int, far: int, rng: random.Random) -> set[tuple[int, int]]:
    """Who met whom: each bot its ``near`` neighbours by strength and ``far`` at random."""
    met: set[tuple[int, int]] = set()
    for k in range(bots):
        others = set(range(max(0, k - near // 2), min(bots, k + near // 2 + 1)))
        others |= {rng.randrange(bots) for _ in range(far)}
        met |= {(min(k, o), max(k, o)) for o in others if o != k}
    return met


def rating_row(bot: Any, elo: float, information: float) -> Any:
    """A stored rating whose variance is its records' information (dispersion 1)."""
    from tournaments.models import Rating
    from tournaments.rating.model.global_rating import START_DEVIATION, Skill

    variance = 1.0 / (information + 1.0 / START_DEVIATION**2)
    row = Rating(bot=bot, game=GAME, elo=elo, matches=1)
    row.set_skill(Skill(elo, variance, information, information, 400, 0.0, {}))
    return row


def timed(step: str, work: Any) -> Any:
    began = time.perf_counter()
    result = work()
    print(f"  {step}: {time.perf_counter() - began:.1f} s", flush=True)
    return result


def measure(sample: int) -> None:
    """One pass, step by step, then the whole pass as the task runs it; the deviations
    against exact ones (the dense inversion where it runs, else one exact solve per
    sampled bot)."""
    from tournaments.models import FieldPass, FieldRating
    from tournaments.rating.model import field_deviations
    from tournaments.rating.stored import field_store, field_view

    print("one pass, step by step:")
    timed("load and refit the field, stored dispersions", lambda: field_store.game_field(GAME))
    recent = timed(
        "read the recent units (field_store.recent_units)", lambda: field_store.recent_units(GAME)
    )
    found = timed(
        f"refit with the dispersion of {len(recent.units):,} units"
        " (field_dispersion.measured_field)",
        lambda: field_store.game_field(GAME, recent=recent),
    )
    n = len(found.keys)
    method = "dense" if n <= field_deviations.DENSE_BOTS else "probed"
    began = time.perf_counter()
    every = field_deviations.against_mean(found)
    spent = time.perf_counter() - began
    print(f"  every bot's joint deviation ({method}): {spent:.1f} s")
    print("the pass as the beat task runs it (field_view.refresh):")
    began = time.perf_counter()
    assert field_view.refresh(GAME) == "refitted"
    whole = time.perf_counter() - began
    stored = FieldRating.objects.count()
    print(
        f"  {stored} bots stored in {whole:.1f} s (the pass's own count: "
        f"{FieldPass.objects.get(game=GAME).seconds:.1f} s before the writes)"
    )
    began = time.perf_counter()
    assert field_view.refresh(GAME) == "unchanged"
    print(f"  the next pass with nothing new: {(time.perf_counter() - began) * 1000:.0f} ms")
    exact(found, every, sample)
    if n <= DENSE_COMPARED:
        against_dense(found)


#: Up to this many bots the bench also inverts the field densely, to compare the probed
#: deviations of every bot with the exact ones.
DENSE_COMPARED = 6_000


def exact(found: Any, every: dict[int, float], sample: int) -> None:
    """The pass's deviations of ``sample`` bots against exact ones (one conjugate-gradient
    solve each, all at once): the largest and mean relative difference; the exact
    solves' time per bot, extrapolated to the field, is the baseline."""
    import numpy as np

    from tournaments.rating.model import field_system

    keys = found.keys
    chosen = random.Random(2).sample(range(len(keys)), min(sample, len(keys)))
    contrasts = np.full((len(keys), len(chosen)), -1.0 / len(keys))
    contrasts[chosen, range(len(chosen))] += 1.0
    began = time.perf_counter()
    solved = field_system.solve(found.csr, contrasts)
    each = (time.perf_counter() - began) / len(chosen)
    truth = np.sqrt(np.einsum("ij,ij->j", contrasts, solved))
    shown = np.array([every[keys[i]] for i in chosen])
    relative = np.abs(shown - truth) / truth
    print(
        f"deviations of {len(chosen)} sampled bots against exact solves: relative difference "
        f"max {relative.max():.4f}, mean {relative.mean():.4f} "
        f"(deviation mean {truth.mean():.1f} Elo)"
    )
    print(
        f"baseline: one exact solve per bot {each * 1000:.0f} ms, "
        f"{each * len(keys):.0f} s for all {len(keys)}"
    )


def against_dense(found: Any) -> None:
    """Every bot's probed deviation against the dense inversion's (exact): the largest
    and mean relative difference, and the time of each."""
    import numpy as np

    from tournaments.rating.model import field_deviations

    began = time.perf_counter()
    dense = np.sqrt(field_deviations.covariance(found, exact=True).variances())
    took_dense = time.perf_counter() - began
    began = time.perf_counter()
    probed = np.sqrt(field_deviations.covariance(found, exact=False).variances())
    took_probed = time.perf_counter() - began
    relative = np.abs(probed - dense) / dense
    print(
        f"probed against dense, all {len(dense)} bots: relative difference max "
        f"{relative.max():.4f}, p99 {np.quantile(relative, 0.99):.4f}, mean {relative.mean():.4f}; "
        f"largest {np.abs(probed - dense).max():.2f} Elo; dense {took_dense:.1f} s, probed "
        f"{took_probed:.1f} s (ratio {took_probed / took_dense:.2f})"
    )


def board(repeats: int = 20) -> None:
    """The leaderboard's rows as its view reads them (``board_views.board_range``: ordered
    by the rating shown, the field view's, a scan of the game's rated bots), top page and
    the deepest by its "more" key, against the former order by the stored rating (one
    range of the (game, elo, bot) index)."""
    from django.db.models import Q
    from django.test import RequestFactory

    from tournaments.models import Rating
    from tournaments.web.board_views import LEADERBOARD_ROWS, board_range, shown_elo

    def rows(query: dict[str, str]) -> Any:
        ratings, _ = board_range(RequestFactory().get("/", query), GAME)
        return ratings.select_related("bot__owner", "field").order_by("-shown", "bot_id")

    top = rows({})
    last = list(top)[-LEADERBOARD_ROWS - 1]
    key = {"after": str(last.bot_id), "elo": repr(shown_elo(last)), "place": "1"}
    stored = Rating.objects.filter(game=GAME, bot__retired=False).select_related("bot__owner")
    old = list(stored.order_by("-elo", "bot_id"))[-LEADERBOARD_ROWS - 1]
    below = Q(elo__lt=old.elo) | Q(elo=old.elo, bot_id__gt=old.bot_id)
    pages = (
        ("shown (field view), top", lambda: rows({})),
        ("shown (field view), deepest", lambda: rows(key)),
        ("stored (index), top", lambda: stored.order_by("-elo", "bot_id")),
        ("stored (index), deepest", lambda: stored.filter(below).order_by("-elo", "bot_id")),
    )
    p50 = []
    for name, page in pages:
        times = []
        for _ in range(repeats):
            began = time.perf_counter()
            found = list(page()[: LEADERBOARD_ROWS + 1])
            times.append(time.perf_counter() - began)
        p50.append(sorted(times)[len(times) // 2] * 1000)
        print(f"leaderboard rows, {name} page ({len(found)} rows): p50 {p50[-1]:.0f} ms")
    print(f"ratio (shown / stored): top {p50[0] / p50[2]:.2f}, deepest {p50[1] / p50[3]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=2500)
    parser.add_argument("--near", type=int, default=40)
    parser.add_argument("--far", type=int, default=20)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument(
        "--matches", type=int, default=20_000, help="recent rated 4-seat matches stored"
    )
    parser.add_argument("--keep", default="", help="a database to seed once and reuse")
    parser.add_argument(
        "--pass-only",
        action="store_true",
        help="time only the whole pass (field_view.refresh), against --baseline-bots",
    )
    parser.add_argument("--baseline-bots", type=int, default=2500)
    options = parser.parse_args()
    configure("bench_field_pass", broker="memory://", sandbox="local")
    if options.pass_only:
        return whole_passes(options)
    print(f"load average {os.getloadavg()[0]:.1f}; {options.bots} bots")
    with scratch_database(options.keep):
        from tournaments.models import RatingRecord

        if options.keep and RatingRecord.objects.exists():
            print(f"reusing {options.keep}: {RatingRecord.objects.count()} records")
            measure(options.sample)
            return report()
        records = timed(
            "seeding",
            lambda: seed(
                options.bots,
                options.near,
                options.far,
                options.games,
                options.matches,
                random.Random(1),
            ),
        )
        print(f"  {records} records ({records // 2} pairs)")
        measure(options.sample)
    report()


def whole_passes(options: Any) -> None:
    """The whole pass as the beat task runs it (``field_view.refresh``: loading, both
    refits, the dispersion, every deviation, the writes) on a field of
    ``--baseline-bots`` (a fresh scratch database) and then of ``--bots`` (``--keep``'s
    if given, seeded once): wall and CPU time, records, and the ratio of the time per
    record (1.0: linear in the records)."""
    from tournaments.models import FieldPass, RatingRecord
    from tournaments.rating.stored import field_view

    figures = []
    for bots, keep in ((options.baseline_bots, ""), (options.bots, options.keep)):
        with scratch_database(keep):
            if not RatingRecord.objects.exists():
                seed(bots, options.near, options.far, options.games, options.matches, rng(1))
            records = RatingRecord.objects.count()
            FieldPass.objects.filter(game=GAME).delete()  # a kept database's last pass
            print(f"{bots} bots, {records} records; load {os.getloadavg()[0]:.1f}", flush=True)
            wall, cpu = time.perf_counter(), time.process_time()
            assert field_view.refresh(GAME) == "refitted"
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"  whole pass: {wall:.1f} s wall, {cpu:.1f} s CPU; peak RSS so far {peak:.0f} MB"
            )
            figures.append((records, wall, cpu))
    (base, base_wall, base_cpu), (big, wall, cpu) = figures
    print(
        f"per record against the baseline ({big / base:.1f}x the records): "
        f"wall {wall / big / (base_wall / base):.2f}, CPU {cpu / big / (base_cpu / base):.2f} "
        "(1.0: linear)"
    )
    report()


def rng(seed: int) -> random.Random:
    return random.Random(seed)


def report() -> None:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (max RSS): {peak:.0f} MB")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
