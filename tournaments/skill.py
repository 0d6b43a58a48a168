"""The global rating: one Elo-scale skill per bot and game, with a deviation from the data.

Plain Python (no database); see docs/ratings.md, "Global rating". The model is the
tournament fit's (tournaments.ratings): Bradley-Terry on Elo's scale over the pairwise
results of each comparison unit (one game, or one duplicate deal summed over its
rotations). The estimate moves once per unit, not per match, by a Bayesian update of
Glicko's form (a Gaussian belief per bot: its mean and its variance, the variance
shrinking with the information each unit brings). A rating therefore depends on the
units played, not on how many games a pairing had. A bot version is a fixed program, so
its strength does not change while it plays; a new version may be stronger or weaker, so
the variance is widened once, by VERSION_DEVIATION, when a new version of the bot is
first rated (``new_version``), and the rating then follows the new version.

The model's variance alone is honest only if a unit's pairwise results are independent
coin flips: the pairs of a six-player placing are decided together (more variable than
that), a duplicate deal is often a draw (less). So each bot also accumulates, per unit,
its score (the gradient of the unit's log-likelihood) squared and the model's expected
value of it (the information); their ratio, the dispersion, measures how variable its
units really are, and the update divides the information by it: the variance is then
the sandwich estimate, the unit as the cluster, as in the tournament fit. While a bot has
few units the dispersion is shrunk towards that of a placing by independent
performances ((n + 1) / 3 for n bots; between two players, 1 less the bot's share of
draws, since a draw scoring 1/2 varies less than a coin). The deviation shown is the
square root of the variance.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from tournaments.ratings import ELO_MAX, ELO_MIN, SCALE, START_ELO, Z95, Placing, pairwise

#: A new bot's deviation (Elo): wide enough for any bot of the field.
START_DEVIATION = 350.0
#: Added to a bot's variance (as a standard deviation, Elo) when a new version of it is
#: first rated: how far a new version's strength may be from the last one's. Chosen by
#: bench/bench_skill.py (docs/ratings.md, "Following a new version").
VERSION_DEVIATION = 100.0
#: Added to a bot's variance (as a standard deviation, Elo) before each unit it plays:
#: none, since a version's strength does not change (new versions widen the variance
#: instead); kept as a parameter for the benchmarks.
DRIFT = 0.0
#: The dispersion a bot has shown counts as much as this many units of the expected
#: one (``expected_dispersion``): little at first, most of it soon.
PRIOR_UNITS = 10
#: The dispersion is taken within these bounds (a handful of lucky units can make it
#: tiny or huge; real games stay well inside).
DISPERSION_MIN = 0.25
DISPERSION_MAX = 4.0
#: Provisional while fewer units than this, or while the deviation is above
#: PROVISIONAL_DEVIATION (a 95% interval wider than about +-200 Elo).
PROVISIONAL_UNITS = 10
PROVISIONAL_DEVIATION = 100.0

_S = math.log(10.0) / SCALE  # Elo points to the logistic's natural units

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True)
class Skill:
    """One bot's global rating state.

    ``elo``: the estimate; ``variance``: the model's variance of it (Elo squared);
    ``information`` and ``spread``: the sums over its units of the model's expected
    squared score and the observed one, less the part the estimates' errors add (their
    ratio is the dispersion); ``units``: the comparison units rated; ``decisive``: the
    sum over its units of the share of its pairwise results there that were not draws.
    """

    elo: float = START_ELO
    variance: float = START_DEVIATION**2
    information: float = 0.0
    spread: float = 0.0
    units: int = 0
    decisive: float = 0.0

    @property
    def dispersion(self) -> float:
        """How variable the bot's units are against the model's coin flips (1: as the model)."""
        if self.information <= 0.0:
            return 1.0
        return min(max(self.spread / self.information, DISPERSION_MIN), DISPERSION_MAX)

    def tempering(self, table: int) -> float:
        """The dispersion the update divides the information by: the measured one,
        shrunk towards ``expected_dispersion`` while the bot has few units."""
        prior = expected_dispersion(table, self.draw_share)
        return (self.dispersion * self.units + PRIOR_UNITS * prior) / (self.units + PRIOR_UNITS)

    @property
    def draw_share(self) -> float:
        """The share of its pairwise results that were draws, as one more decisive result
        would leave it (0 for a new bot)."""
        return (self.units - self.decisive) / (self.units + 1)

    @property
    def deviation(self) -> float:
        """The standard deviation of the rating shown (Elo)."""
        return math.sqrt(self.variance)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.units, self.deviation)

    def interval(self) -> tuple[float, float]:
        """The 95% interval, within [ELO_MIN, ELO_MAX]."""
        return interval(self.elo, self.deviation)


def interval(elo: float, deviation: float) -> tuple[float, float]:
    """elo +- 1.96 deviations, both ends clipped to [ELO_MIN, ELO_MAX] (a rating beyond
    the scale shows an interval at its edge)."""
    half = Z95 * max(deviation, 0.0)
    low = min(max(elo - half, ELO_MIN), ELO_MAX)
    return low, max(min(elo + half, ELO_MAX), ELO_MIN)


def is_provisional(units: int, deviation: float) -> bool:
    """Too few units, or too wide an interval, to read much into the rating."""
    return units < PROVISIONAL_UNITS or deviation > PROVISIONAL_DEVIATION


def expected_dispersion(table: int, draws: float = 0.0) -> float:
    """The dispersion of a placing of ``table`` bots of equal strength decided by one
    independent performance each: a bot's pairwise score is then the number it beat,
    uniform on 0..n-1, of variance (n^2 - 1) / 12 against (n - 1) / 4 for independent
    pairs: (n + 1) / 3 (1 for two players, 5/3 for four, 7/3 for six).

    Two players who draw a share ``draws`` of their results: a draw scores 1/2, so at
    even odds the score's variance is (1 - draws) / 4 against the model's 1 / 4, and the
    dispersion 1 - draws. (Larger tables keep (n + 1) / 3.)"""
    if table == 2:
        return 1.0 - draws
    return (table + 1) / 3.0


def _attenuation(variance: float) -> float:
    """Glicko's g: an uncertain opponent's result says less (1 for a certain one)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * _S * _S * variance / math.pi**2)


def rate_unit(skills: Mapping[P, Skill], unit: Placing[P], drift: float = DRIFT) -> dict[P, Skill]:
    """The new skills of the bots of one comparison unit (others are left out).

    Every bot's change is computed from the skills before the unit, each variance first
    widened by the drift (v + drift^2, at most the start's). For bot i and each opponent
    j at the table: g = 1 / sqrt(1 + 3 s^2 (v_i + v_j) / pi^2) (Glicko's attenuation,
    s = ln 10 / 400) and E = 1 / (1 + exp(-s g (r_i - r_j))); i's score is
    u = s sum_j g (y_ij - E), its information h = s^2 sum_j g^2 E (1 - E). With t its
    tempering (the dispersion, see ``Skill.tempering``): v' = 1 / (1 / v + h / t) and
    r' = r + v' u / t. A bot with no opponent in the unit (all seats its own) is left
    as it was.
    """
    before = {p: skills.get(p, Skill()) for p in unit.seats}
    widened = {p: min(s.variance + drift * drift, START_DEVIATION**2) for p, s in before.items()}
    score: dict[P, float] = defaultdict(float)
    info: dict[P, float] = defaultdict(float)
    noise: dict[P, float] = defaultdict(float)  # the opponents' part of the score's error
    pairs: dict[P, int] = defaultdict(int)
    decided: dict[P, int] = defaultdict(int)
    for a, b, y in pairwise(unit.seats, unit.places):
        for me, other, mine in ((a, b, y), (b, a, 1.0 - y)):
            pairs[me] += 1
            decided[me] += y != 0.5
            g = _attenuation(widened[me] + widened[other])
            expected = 1.0 / (1.0 + math.exp(-_S * g * (before[me].elo - before[other].elo)))
            score[me] += _S * g * (mine - expected)
            h = _S * _S * g * g * expected * (1.0 - expected)
            info[me] += h
            noise[me] += h * h * widened[other]
    after = {}
    for p in score:
        old = before[p]
        phi = old.tempering(len(set(unit.seats)))
        variance = 1.0 / (1.0 / widened[p] + info[p] / phi)
        # The score is measured at estimates, not at the true ratings: their errors add
        # about h^2 v (own) + sum_j h_j^2 v_j (opponents') to its square, which is not
        # the unit's own variability and is taken out.
        estimation = info[p] ** 2 * widened[p] + noise[p]
        after[p] = replace(
            old,
            elo=old.elo + variance * score[p] / phi,
            variance=variance,
            information=old.information + info[p],
            spread=old.spread + score[p] ** 2 - estimation,
            units=old.units + 1,
            decisive=old.decisive + decided[p] / pairs[p],
        )
    return after


def new_version(state: Skill, deviation: float = VERSION_DEVIATION) -> Skill:
    """The state of a bot whose new version is about to be rated for the first time: its
    variance widened by ``deviation`` squared, at most the start's (so a bot's first
    version starts where any new bot does); the rest is kept."""
    return replace(state, variance=min(state.variance + deviation * deviation, START_DEVIATION**2))


def rate_units(
    skills: Mapping[P, Skill],
    units: Iterable[Placing[P]],
    drift: float = DRIFT,
    new_versions: Collection[P] = (),
    version_deviation: float = VERSION_DEVIATION,
) -> dict[P, Skill]:
    """The skills after rating ``units`` in order (one match's, say), from ``skills``:
    only the bots that played in them. ``new_versions``: the bots whose version in these
    units was never rated before; each is widened by ``new_version`` before the first
    unit (and counts as moved even if no unit rates it)."""
    current = dict(skills)
    moved: dict[P, Skill] = {}
    units = list(units)
    seated = {p for unit in units for p in unit.seats}
    for p in seated.intersection(new_versions):
        moved[p] = current[p] = new_version(current.get(p, Skill()), version_deviation)
    for unit in units:
        after = rate_unit(current, unit, drift)
        current.update(after)
        moved.update(after)
    return moved


def replay(units: Iterable[Placing[P]], drift: float = DRIFT) -> dict[P, Skill]:
    """Skills after rating every unit in order, from the start (one version per bot)."""
    return rate_units({}, units, drift)
