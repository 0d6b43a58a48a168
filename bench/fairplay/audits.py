"""The fair-play audits against honest fields and against cheaters we wrote (issue 43).

Real engines and house bots: a field of Big Two bots of graded strength (each move the
house greedy bot's with probability q, the random bot's otherwise: bench._engine_results'
MixedPolicy, q from 0 to 1) and the house greedy bot itself (a house bot: the audit holds
it at 0), every match a duplicate deal played by the real referee, stored as the service
stores it, audited by tournaments.fairplay as the service audits it.

1. **False flags, rotation order** (2 seats): a library of duplicate deals is played for
   every pair of the field (its seats in random order, as the ladder shuffles them); each
   simulated site draws its ladder matches from it and is audited at the default
   threshold. Printed: the share of versions flagged and of sites flagging any (goal: at
   most 1%), against the baseline reading (each version's plain mean of later-minus-first
   over its iid error, normal, at 1% with no correction over versions). Sites drawn from
   one library share its chance leanings (a bot whose library deals lean one way leans so
   in every site): ``--fresh-sites N`` also plays N sites of their own deals (independent,
   as real sites are; about 5 s a site).
2. **Power, rotation order**: a bot that carries each deal's hands to its later rotation
   through a perfect channel (bench.fairplay._cheaters.CarryingPolicy: greedy when it knows
   nothing, a search over the opponent's known hand when it does) joins a site and plays
   200 deals against the house greedy bot (as issue 43's bot did), its seat first or
   second at random; the site is audited after 50, 100, 150 and 200 of them.
   Baseline: its honest twin (greedy) on the same deals. Printed: the share of sites
   flagging each, and the cheater's gain over its twin in standard deviations of a deal's
   score (the twin's first-rotation score).
3. **Collusion** (4 seats): a pair in league (bench.fairplay._cheaters.SoftPlayPolicy: they tell
   each other their seats; the server never contests its captain) in a field of six,
   random tables of four; baseline: the same two seats played by two honest greedy bots.
   Printed: the share of sites flagging the pair, and of honest pairs flagged.

Run: ``python -m bench.fairplay.audits [--sites N] [--power-sites N] [--collusion-sites N]``
(683 s at the defaults at load 6 to 20 on the 2-core machine; ``--quick`` for a look, 70 s).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench._engine_results import Field, mixed_player
from bench.fairplay._cheaters import CarryingPolicy, RelayChannel, SoftPlayPolicy
from judge.bots import Policy, house_policy
from judge.referee import BotInfo, MatchSpec, play_match
from tournaments.fairplay import collusion, rotation_order, significance
from tournaments.fairplay.rotation_order import StoredMatch

GAME = "bigtwo"
#: The field: MixedPolicy bots of these q, and the house greedy bot (key HOUSE).
QS = (0.0, 1 / 7, 2 / 7, 3 / 7, 4 / 7, 5 / 7, 6 / 7, 1.0)
HOUSE = 100
CHEATER = 200
CHECKPOINTS = (50, 100, 150, 200)
Maker = Callable[[int], Policy]


def field_maker(seats: int, qs: Sequence[float] = QS) -> Callable[[int], Maker]:
    field = Field(GAME, seats, qs=tuple(qs))

    def maker(bot: int) -> Maker:
        if bot == HOUSE:
            return lambda seed: house_policy(GAME, "greedy", seed)
        return lambda seed: mixed_player(field, bot, seed)

    return maker


def play(table: Sequence[int], makers: Sequence[Maker], seed: int, number: int) -> StoredMatch:
    """One duplicate deal of ``table`` (bot keys in seat order), as the service stores it."""
    spec = MatchSpec(game=GAME, seed=seed, players=len(table), games=1, duplicate=True)

    def start(index: int) -> RelayChannel:
        return RelayChannel(makers[index](seed * 7 + index))

    out = play_match(spec, [BotInfo(str(b)) for b in table], start).to_json()
    return StoredMatch(number, tuple(table), True, out["games"], out["faults"])


# 1. False flags of the rotation-order audit.


def library(deals: int, rng: random.Random) -> dict[tuple[int, int], list[StoredMatch]]:
    """``deals`` duplicate deals of every pair of the 2-seat field, seats in random order."""
    maker = field_maker(2)
    bots = [*range(len(QS)), HOUSE]
    found: dict[tuple[int, int], list[StoredMatch]] = {}
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            found[a, b] = []
            for _ in range(deals):
                table = [a, b] if rng.random() < 0.5 else [b, a]
                seed = rng.randrange(1 << 40)
                found[a, b].append(play(table, [maker(k) for k in table], seed, 0))
    return found


def site_matches(
    deals: dict[tuple[int, int], list[StoredMatch]], matches: int, rng: random.Random
) -> list[StoredMatch]:
    """A site's ladder: ``matches`` random pairs, each a deal drawn from the library."""
    pairs = list(deals)
    drawn = []
    for number in range(matches):
        pair = rng.choice(pairs)
        found = rng.choice(deals[pair])
        drawn.append(StoredMatch(number, found.versions, True, found.games, found.faults))
    return drawn


def naive_flags(matches: Sequence[StoredMatch]) -> set[int]:
    """The baseline: each version's plain mean of later-minus-first over its iid error,
    normal, one-sided at 1%, no correction over versions, no opponents' part."""
    by_version: dict[int, list[float]] = {}
    for match in matches:
        for deal in rotation_order.later_minus_first(match):
            for version, value in zip(match.versions, deal, strict=True):
                by_version.setdefault(version, []).append(value)
    flagged = set()
    for version, values in by_version.items():
        if version == HOUSE or len(values) < rotation_order.MIN_DEALS:
            continue
        error = statistics.stdev(values) / len(values) ** 0.5
        if error > 0 and significance.upper_p(statistics.mean(values) / error) < 0.01:
            flagged.add(version)
    return flagged


@dataclass
class Rates:
    versions: int = 0
    flagged: int = 0
    sites: int = 0
    sites_flagging: int = 0
    naive_flagged: int = 0

    def line(self) -> str:
        return (
            f"{self.sites} sites, {self.versions} honest version tests: audit flagged "
            f"{self.flagged} ({share(self.flagged, self.versions)}), sites flagging any "
            f"{self.sites_flagging} ({share(self.sites_flagging, self.sites)}); baseline "
            f"(plain mean, normal, 1%, uncorrected) flagged {self.naive_flagged} "
            f"({share(self.naive_flagged, self.versions)})"
        )


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "-"


def false_flags(
    deals: dict[tuple[int, int], list[StoredMatch]], sites: int, matches: int, seed: int
) -> Rates:
    rng = random.Random(seed)
    rates = Rates()
    for _ in range(sites):
        drawn = site_matches(deals, matches, rng)
        findings = rotation_order.audit(drawn, honest={HOUSE})
        rates.sites += 1
        rates.versions += len(findings)
        hits = sum(f.flagged for f in findings.values())
        rates.flagged += hits
        rates.sites_flagging += hits > 0
        rates.naive_flagged += len(naive_flags(drawn))
    return rates


def fresh_false_flags(sites: int, matches: int, seed: int) -> Rates:
    """As ``false_flags``, each site with deals of its own (independent sites: a shared
    library's own chance deviations repeat in every site drawn from it)."""
    rng = random.Random(seed)
    maker = field_maker(2)
    bots = [*range(len(QS)), HOUSE]
    rates = Rates()
    for _ in range(sites):
        played = []
        for number in range(matches):
            table = rng.sample(bots, 2)
            played.append(play(table, [maker(k) for k in table], rng.randrange(1 << 40), number))
        findings = rotation_order.audit(played, honest={HOUSE})
        hits = sum(f.flagged for f in findings.values())
        rates.sites += 1
        rates.versions += len(findings)
        rates.flagged += hits
        rates.sites_flagging += hits > 0
        rates.naive_flagged += len(naive_flags(played))
    return rates


# 2. Power of the rotation-order audit against a bot that carries the deal.


@dataclass
class Power:
    sites: int = 0
    cheater_flagged: dict[int, int] | None = None
    twin_flagged: dict[int, int] | None = None
    gains: list[float] | None = None
    twin_first: list[float] | None = None
    carried: int = 0
    deals: int = 0


def cheater_deals(
    twin: bool, opponents: Sequence[int], seeds: Sequence[int], tables: Sequence[bool]
) -> list[StoredMatch]:
    """The cheater's (or its honest twin's) deals against ``opponents``, in seat order
    ``tables`` (True: the cheater in seat 0)."""
    maker = field_maker(2)
    store: dict[frozenset[str], list[str]] = {}
    played = []
    for number, (opponent, seed, first) in enumerate(zip(opponents, seeds, tables, strict=True)):
        mine: Maker = (
            (lambda s: house_policy(GAME, "greedy", s))
            if twin
            else lambda s: CarryingPolicy(store, s)
        )
        table = [CHEATER, opponent] if first else [opponent, CHEATER]
        makers = [mine, maker(opponent)] if first else [maker(opponent), mine]
        played.append(play(table, makers, seed, 10_000 + number))
    return played


def power(
    deals: dict[tuple[int, int], list[StoredMatch]], sites: int, matches: int, seed: int
) -> Power:
    rng = random.Random(seed)
    result = Power(0, dict.fromkeys(CHECKPOINTS, 0), dict.fromkeys(CHECKPOINTS, 0), [], [])
    for _ in range(sites):
        honest = site_matches(deals, matches, rng)
        count = CHECKPOINTS[-1]
        opponents = [HOUSE] * count  # as issue 43's bot played: the house greedy bot
        seeds = [rng.randrange(1 << 40) for _ in range(count)]
        tables = [rng.random() < 0.5 for _ in range(count)]
        runs = {twin: cheater_deals(twin, opponents, seeds, tables) for twin in (False, True)}
        for twin, played in runs.items():
            counts = result.twin_flagged if twin else result.cheater_flagged
            assert counts is not None
            for checkpoint in CHECKPOINTS:
                found = rotation_order.audit([*honest, *played[:checkpoint]], honest={HOUSE})
                counts[checkpoint] += bool(found.get(CHEATER) and found[CHEATER].flagged)
        for cheat, twin_match in zip(runs[False], runs[True], strict=True):
            seat = cheat.versions.index(CHEATER)
            d_cheat = rotation_order.later_minus_first(cheat)[0][seat]
            d_twin = rotation_order.later_minus_first(twin_match)[0][seat]
            assert result.gains is not None and result.twin_first is not None
            result.gains.append(d_cheat - d_twin)
            first = twin_match.games[0]
            result.twin_first.append(rotation_order.scores_by_bot(first, 2)[seat])
        result.sites += 1
    return result


# 3. The collusion audit at 4 seats.

#: The 4-seat field: two greedy, two half-greedy, two random, and the pair (keys 6, 7).
QS4 = (1.0, 1.0, 0.5, 0.5, 0.0, 0.0)
CAPTAIN, SERVER = 6, 7


def collusion_site(colluding: bool, tables: int, seed: int) -> tuple[bool, int, int, int]:
    """A 4-seat site: random tables of four of the eight; whether the pair was flagged,
    the deals it shared, and the honest pairs tested and flagged."""
    rng = random.Random(seed)
    maker = field_maker(4, QS4)
    played = []
    for number in range(tables):
        table = rng.sample(range(8), 4)
        team: dict[str, Any] = {}

        def make(bot: int, team: dict[str, Any] = team) -> Maker:
            if bot in (CAPTAIN, SERVER):
                if not colluding:
                    return lambda s: house_policy(GAME, "greedy", s)
                role = "a" if bot == CAPTAIN else "b"
                return lambda s: SoftPlayPolicy(team, role, s)
            return maker(bot)

        played.append(play(table, [make(b) for b in table], rng.randrange(1 << 40), number))
    found = collusion.audit(played)
    pair = [f for f in found if (f.a, f.b) == (CAPTAIN, SERVER)]
    honest = [f for f in found if (f.a, f.b) != (CAPTAIN, SERVER)]
    flagged_pair = any(f.flagged for f in pair)
    shared = pair[0].deals if pair else 0
    honest_pairs = {(f.a, f.b) for f in honest}
    flagged_honest = {(f.a, f.b) for f in honest if f.flagged}
    return flagged_pair, shared, len(honest_pairs), len(flagged_honest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library-deals", type=int, default=60, help="deals per pair (60)")
    parser.add_argument("--sites", type=int, default=300, help="honest sites (300)")
    parser.add_argument("--matches", type=int, default=300, help="ladder matches a site (300)")
    parser.add_argument(
        "--fresh-sites", type=int, default=0, help="honest sites with deals of their own (0)"
    )
    parser.add_argument("--power-sites", type=int, default=10, help="sites with a cheater (10)")
    parser.add_argument("--collusion-sites", type=int, default=3, help="4-seat sites (3)")
    parser.add_argument("--tables", type=int, default=300, help="4-seat tables a site (300)")
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--quick", action="store_true", help="a look: few sites of each")
    args = parser.parse_args()
    if args.quick:
        args.library_deals, args.sites, args.power_sites = 20, 40, 2
        args.collusion_sites = 1
    began = time.perf_counter()
    rng = random.Random(args.seed)
    deals = library(args.library_deals, rng)
    print(
        f"library: {sum(map(len, deals.values()))} duplicate deals of {len(deals)} pairs "
        f"({time.perf_counter() - began:.0f} s)",
        flush=True,
    )
    rates = false_flags(deals, args.sites, args.matches, args.seed + 1)
    print(f"1. rotation order, honest fields drawn from the library: {rates.line()}", flush=True)
    if args.fresh_sites:
        rates = fresh_false_flags(args.fresh_sites, args.matches, args.seed + 3)
        print(f"1. rotation order, honest fields of their own deals: {rates.line()}", flush=True)

    started = time.perf_counter()
    found = power(deals, args.power_sites, args.matches, args.seed + 2)
    assert found.gains and found.twin_first is not None
    gain, spread = statistics.mean(found.gains), statistics.stdev(found.twin_first)
    print(
        f"2. rotation order, a bot carrying the deal: gain {gain:+.2f} points a deal over its "
        f"honest twin = {gain / spread:.2f} standard deviations of a deal's score "
        f"({spread:.2f}); sites flagging it after "
        + ", ".join(
            f"{c} deals {found.cheater_flagged[c]}/{found.sites}"  # type: ignore[index]
            for c in CHECKPOINTS
        )
        + "; its honest twin after "
        + ", ".join(
            f"{c} {found.twin_flagged[c]}/{found.sites}"  # type: ignore[index]
            for c in CHECKPOINTS
        )
        + f" ({time.perf_counter() - started:.0f} s)",
        flush=True,
    )

    started = time.perf_counter()
    for colluding in (True, False):
        results = [
            collusion_site(colluding, args.tables, args.seed + 10 + s)
            for s in range(args.collusion_sites)
        ]
        label = "the pair in league" if colluding else "baseline: the same seats honest"
        print(
            f"3. collusion, 4 seats, {label}: pair flagged at "
            f"{sum(r[0] for r in results)}/{len(results)} sites (shared deals "
            f"{', '.join(str(r[1]) for r in results)}); honest pairs flagged "
            f"{sum(r[3] for r in results)} of {sum(r[2] for r in results)}",
            flush=True,
        )
    print(
        f"took {time.perf_counter() - began:.0f} s ({time.perf_counter() - started:.0f} s 4-seat)"
    )


if __name__ == "__main__":
    main()
