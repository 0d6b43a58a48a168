"""The global rating: one Elo-scale skill per bot and game, with a deviation from the data.

Plain Python (no database); see docs/ratings.md, "Global rating". A view of the results
(``results``), its state per bot kept in ``skill`` (what a Rating row stores). The model is
the tournament fit's: Bradley-Terry on Elo's scale over the pairwise
results of each comparison unit (one game, or one duplicate deal summed over its
rotations). Each bot keeps a record per opponent version (the number of pairwise
results, its score in them, and the opponent's rating when they last met). After each
rated match its bots' ratings are fitted again to their whole records, the match's bots
together: a rating is the best explanation of every result the bot has had, not the sum
of the steps it was moved by when each came, so the results it had against an opponent
whose rating was then wrong are read again against its better rating when they meet
again. A rating therefore depends on the results, not on how many games a pairing had
(the order still matters a little: an opponent away from the table is read where the
bot last met it). A bot version is a fixed program, so its strength does not change
while it plays; a new version may be stronger or weaker, so its earlier results count
less once it comes (``new_version``: the variance widens by VERSION_DEVIATION), and the
rating then follows the new version.

The model's variance alone is honest only if a unit's pairwise results are independent
coin flips: the pairs of a six-player placing are decided together (more variable than
that), a duplicate deal is often a draw (less). So each bot also accumulates, per unit,
its score (the gradient of the unit's log-likelihood) squared and the model's expected
value of it (the information); their ratio, the dispersion, measures how variable its
units really are, and the fit divides the information by it: the variance is then the
sandwich estimate, the unit as the cluster, as in the tournament fit. While a bot has
few units the dispersion is shrunk towards that of a placing by independent
performances ((n + 1) / 3 for n bots; between two players, 1 less the bot's share of
draws, since a draw scoring 1/2 varies less than a coin). The deviation shown is the
square root of the variance.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple, TypeVar

from tournaments.rating.model import linear, skill
from tournaments.rating.model.results import SCALE, START_ELO, Placing, Record, pairwise
from tournaments.rating.model.skill import START_DEVIATION, Skill

#: Added to a bot's variance (as a standard deviation, Elo) when a new version of it is
#: first rated: how far a new version's strength may be from the last one's. Chosen by
#: bench/ratings/following.py: a new version shows 90% of its raw change (its rating less
#: its opponents') within 22 games in the two games measured, where 100 took 67-82
#: (docs/ratings.md, "Following a new version, raw").
VERSION_DEVIATION = 150.0
# What is read from a state lives with the state (skill); the global rating names it too.
PRIOR_UNITS = skill.PRIOR_UNITS
DISPERSION_MIN, DISPERSION_MAX = skill.DISPERSION_MIN, skill.DISPERSION_MAX
PROVISIONAL_UNITS, PROVISIONAL_DEVIATION = skill.PROVISIONAL_UNITS, skill.PROVISIONAL_DEVIATION
expected_dispersion = skill.expected_dispersion
interval = skill.interval
is_provisional = skill.is_provisional
#: The fit of a match's bots: at most this many Newton steps, stopping once none moves
#: by more than CONVERGED (Elo).
NEWTON_STEPS = 20
CONVERGED = 1e-6

_S = math.log(10.0) / SCALE  # Elo points to the logistic's natural units

P = TypeVar("P", bound=Hashable)


def _expected(me: float, other: float) -> float:
    """The model's expected pairwise score of a bot rated ``me`` against one rated ``other``."""
    return 1.0 / (1.0 + math.exp(-_S * (me - other)))


class _Rest(NamedTuple):
    """The part of a bot's log-posterior that comes from its records of opponents not at
    the table (their ratings stay where the bot last met them), as a Taylor expansion
    around ``at``: its gradient, its curvature (the negated second derivative) and the
    curvature's slope. One pass over those records serves every Newton step that stays
    within REEXPAND of ``at``."""

    at: float
    gradient: float
    curvature: float
    bend: float


#: How far (Elo) the fit may move a bot from where its other records were expanded
#: (``_Rest``) before they are read again; the expansion's error there is below 1e-3 of
#: the gradient.
REEXPAND = 25.0


def _rest(x: float, records: Mapping[Any, Record], at_table: Collection[Any], t: float) -> _Rest:
    """``_Rest`` of a bot at ``x``, from its records except those keyed in ``at_table``."""
    gradient = curvature = bend = 0.0
    exp = math.exp  # the loop over every record: no lookups in it
    for other, (results, score, seen) in records.items():
        if other in at_table:
            continue
        expected = 1.0 / (1.0 + exp(_S * (seen - x)))
        weight = results * expected * (1.0 - expected)
        gradient += score - results * expected
        curvature += weight
        bend += weight * (1.0 - 2.0 * expected)
    return _Rest(x, _S * gradient / t, _S**2 * curvature / t, _S**3 * bend / t)


def _slope(
    x: float,
    rest: _Rest,
    at_table: Sequence[tuple[Record, float]],
    tempering: float,
) -> tuple[float, float]:
    """A bot's log-posterior's gradient and curvature at ``x``: the start as prior, its
    records of opponents away from the table from ``rest``, and those of the table's
    (each with that opponent's rating now), each result counting 1 / ``tempering``."""
    precision = 1.0 / START_DEVIATION**2
    d = x - rest.at
    gradient = -(x - START_ELO) * precision
    gradient += rest.gradient - rest.curvature * d - rest.bend * d * d / 2.0
    curvature = precision + rest.curvature + rest.bend * d
    for record, other in at_table:
        expected = _expected(x, other)
        gradient += _S * (record.score - record.results * expected) / tempering
        curvature += _S * _S * record.results * expected * (1.0 - expected) / tempering
    return gradient, curvature


class _Table(NamedTuple):
    """What the fit of one match's bots reads: each bot's records and tempering, the key
    of each bot's records of the others (its version), and the rest of each's records."""

    records: Mapping[Any, Mapping[Any, Record]]
    tempering: Mapping[Any, float]
    key: Mapping[Any, Hashable]
    rest: dict[Any, _Rest]


def _at_table(
    p: P, table: _Table, players: Sequence[P], now: Mapping[P, float]
) -> list[tuple[Record, float]]:
    """The bot's records of the table's other bots, each with its rating now."""
    mine = table.records[p]
    return [(mine[table.key[q]], now[q]) for q in players if q != p and table.key[q] in mine]


def _gradient_and_curvature(
    p: P, table: _Table, players: Sequence[P], now: Mapping[P, float]
) -> tuple[float, float]:
    """``_slope`` of the bot at its rating now, its rest read again if it moved far."""
    if abs(now[p] - table.rest[p].at) > REEXPAND:
        keys = {table.key[q] for q in players}
        table.rest[p] = _rest(now[p], table.records[p], keys, table.tempering[p])
    return _slope(now[p], table.rest[p], _at_table(p, table, players, now), table.tempering[p])


def _fit(players: Sequence[P], table: _Table, start: Mapping[P, float]) -> dict[P, float]:
    """The match's bots' ratings at which each one's log-posterior is flat (``_slope``),
    all solved together by Newton's method from ``start`` (steps capped at 400 points):
    each bot's gradient depends on the others' ratings through its records of them."""
    now = dict(start)
    for _ in range(NEWTON_STEPS):
        gradient, jacobian = [], []
        for p in players:
            g, curvature = _gradient_and_curvature(p, table, players, now)
            gradient.append(g)
            row = []
            for q in players:
                record = table.records[p].get(table.key[q]) if q != p else None
                if q == p:
                    row.append(curvature)
                elif record is None:
                    row.append(0.0)
                else:
                    e = _expected(now[p], now[q])
                    row.append(-_S * _S * record.results * e * (1.0 - e) / table.tempering[p])
            jacobian.append(row)
        steps = linear.solve(jacobian, gradient)
        for p, step in zip(players, steps, strict=True):
            now[p] += max(min(step, 400.0), -400.0)
        if max(map(abs, steps), default=0.0) < CONVERGED:
            break
    return now


def _tally(
    units: Sequence[Placing[P]], key: Mapping[P, Hashable]
) -> tuple[dict[P, dict[Hashable, tuple[int, float]]], dict[P, int]]:
    """Per bot and opponent (by ``key``), the number of pairwise results of ``units`` and
    the bot's score in them; per bot, the number of bots at its table."""
    results: dict[P, dict[Hashable, tuple[int, float]]] = defaultdict(dict)
    tables: dict[P, int] = {}
    for unit in units:
        for a, b, y in pairwise(unit.seats, unit.places):
            for me, other, mine in ((a, b, y), (b, a, 1.0 - y)):
                count, score = results[me].get(key[other], (0, 0.0))
                results[me][key[other]] = (count + 1, score + mine)
                tables[me] = len(set(unit.seats))
    return results, tables


def _with_results(
    records: Mapping[Any, Record], results: Mapping[Any, tuple[int, float]]
) -> dict[Any, Record]:
    """``records`` with a match's results (per opponent: count, score) added."""
    updated = dict(records)
    for other, (count, score) in results.items():
        old = updated.get(other, Record(0.0, 0.0, START_ELO))
        updated[other] = Record(old.results + count, old.score + score, old.seen)
    return updated


def _dispersion_sums(
    p: P, units: Sequence[Placing[P]], now: Mapping[P, float], totals: Mapping[P, float]
) -> tuple[float, float]:
    """What one match adds to a bot's dispersion sums: per unit, its squared score at the
    new ratings, and the model's expected value of it less the unit's leverage.

    ``totals``: each bot's whole information (its tempering over its variance). A fitted
    rating leaves a unit a smaller score, and so does each opponent's: the unit's
    leverage is h^2 / H for the bot (h its information in the unit, H its total) plus,
    per opponent, h_j^2 / H_j (h_j the information of that pair). Counting the bot's own
    share only, the sums measured too small a dispersion, the more so the fewer units a
    bot had and the more its pairs were chosen on the ratings' own errors (the ladder's
    matchmaking): intervals 11% too narrow on the 2-seat ladder (docs/ratings.md)."""
    spread = information = 0.0
    for unit in units:
        score = info = leverage = 0.0
        for a, b, y in pairwise(unit.seats, unit.places):
            if p in (a, b):
                mine, other = (y, b) if p == a else (1.0 - y, a)
                expected = _expected(now[p], now[other])
                pair = _S * _S * expected * (1.0 - expected)
                score += _S * (mine - expected)
                info += pair
                leverage += pair * pair / totals[other]
        spread += score * score
        information += info - info * info / totals[p] - leverage
    return spread, information


def _counts(p: P, units: Sequence[Placing[P]]) -> tuple[int, float]:
    """The units in which the bot met an opponent, and the sum over them of the share of
    its pairwise results that were not draws."""
    played, decisive = 0, 0.0
    for unit in units:
        pairs = [y for a, b, y in pairwise(unit.seats, unit.places) if p in (a, b)]
        if pairs:
            played += 1
            decisive += sum(y != 0.5 for y in pairs) / len(pairs)
    return played, decisive


def rate_units(
    skills: Mapping[P, Skill],
    units: Iterable[Placing[P]],
    new_versions: Collection[P] = (),
    version_deviation: float = VERSION_DEVIATION,
    versions: Mapping[P, Hashable] | None = None,
) -> dict[P, Skill]:
    """The skills after one rated match of ``units`` (its comparison units), from
    ``skills``: only the bots that played in them. A bot in ``new_versions`` is first
    widened by ``new_version`` (and counts as moved even with no opponent in the match).

    Each bot's records gain the match's pairwise results. Every bot of the match then
    takes the rating that best explains all its records (``_fit``), the match's bots
    solved together, every other opponent taken where the bot last met it; its variance
    is the inverse of the fit's curvature, and its records now see the match's opponents
    at their new ratings. Each result counts 1 / t, t the bot's tempering before the match.

    Records are kept per opponent version (``versions``: each bot's version in this
    match; by default the bot itself): the results against an earlier version stay read
    at that version's last rating, never at a stronger successor's.
    """
    units = list(units)
    current = dict(skills)
    moved: dict[P, Skill] = {}
    seated = list(dict.fromkeys(p for unit in units for p in unit.seats))
    for p in seated:
        if p in new_versions:
            moved[p] = current[p] = new_version(current.get(p, Skill()), version_deviation)
    key = {p: (versions or {}).get(p, p) for p in seated}
    results, tables = _tally(units, key)
    players = [p for p in seated if p in results]
    before = {p: current.get(p, Skill()) for p in players}
    records = {p: _with_results(before[p].records, results[p]) for p in players}
    tempering = {p: before[p].tempering(tables[p]) for p in players}
    keys = {key[q] for q in players}
    rest = {p: _rest(before[p].elo, records[p], keys, tempering[p]) for p in players}
    table = _Table(records, tempering, key, rest)
    now = _fit(players, table, {p: before[p].elo for p in players})
    met = {key[q]: now[q] for q in players}
    curvatures = {p: _gradient_and_curvature(p, table, players, now)[1] for p in players}
    totals = {p: tempering[p] * curvatures[p] for p in players}
    for p in players:
        curvature = curvatures[p]
        seen = records[p]  # this call's own copy: the new ratings of the table's bots
        for other in met.keys() & seen.keys():
            seen[other] = seen[other]._replace(seen=met[other])
        spread, information = _dispersion_sums(p, units, now, totals)
        played, decisive = _counts(p, units)
        old = before[p]
        moved[p] = replace(
            old,
            elo=now[p],
            variance=1.0 / curvature,
            information=old.information + information,
            spread=old.spread + spread,
            units=old.units + played,
            decisive=old.decisive + decisive,
            records=seen,
        )
    return moved


def new_version(state: Skill, deviation: float = VERSION_DEVIATION) -> Skill:
    """The state of a bot whose new version is about to be rated for the first time: its
    variance widened by ``deviation`` squared, at most the start's (so a bot's first
    version starts where any new bot does), by counting its earlier results less: each
    record is scaled by the share of the information above the prior's that the wider
    variance keeps. The rest is kept."""
    variance = min(state.variance + deviation * deviation, START_DEVIATION**2)
    prior = 1.0 / START_DEVIATION**2
    data = 1.0 / state.variance - prior
    keep = (1.0 / variance - prior) / data if data > 0.0 else 1.0
    records = {
        o: Record(r.results * keep, r.score * keep, r.seen) for o, r in state.records.items()
    }
    return replace(state, variance=variance, records=records)


def replay(matches: Iterable[Sequence[Placing[P]]]) -> dict[P, Skill]:
    """Skills after rating every match's units in order, from the start (one version per
    bot)."""
    skills: dict[P, Skill] = {}
    for units in matches:
        skills.update(rate_units(skills, units))
    return skills
