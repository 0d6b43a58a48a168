"""What the global rating stores per bot: its state (``Skill``), and how it reads.

Plain Python (no database). The state is the view the service keeps of each bot's results
(``results.Record`` per opponent version), written to a ``Rating`` row with every rated
match; ``global_rating.rate_units`` updates it (docs/ratings.md, "Global rating"). This
module holds the state and what is read from it (deviation, dispersion, interval,
provisional), not the fit, so the rows (tournaments.models) can store a state without
importing a fit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tournaments.rating.model.results import ELO_MAX, ELO_MIN, START_ELO, Z95, Record

#: A new bot's deviation (Elo): wide enough for any bot of the field.
START_DEVIATION = 350.0
#: The field pass's prior (Elo around the start): wider than a bot's own start, because the
#: pass judges every bot's place in the whole field and a shrinkage as narrow as 350 pulls
#: a bot far above or below its field too far at few plays (the real open Fifteen
#: Thirty-Five field spans 1,069 Elo, its strongest 755 above the mean: at 350 it was
#: rated 221 low at 5 plays and covered 0.82; docs/ratings.md, "The field pass's prior").
FIELD_PRIOR_DEVIATION = 500.0
#: The expected dispersion (``expected_dispersion``) counts as much as this many units of
#: the one a bot has shown: the formula's (n + 1) / 3 assumes bots of equal strength, and
#: a field's spread makes a placing's pairs less alike (measured 1.52 for four seats and
#: 2.00 for six against 5/3 and 7/3), so the measured one takes over soon. With 10, the
#: first plays' intervals were too wide (0.97-0.98 at 5 plays); 3 still left three cells
#: at 0.972-0.975 (docs/ratings.md, "Joint uncertainty and the ladder").
PRIOR_UNITS = 1.5
#: The dispersion is taken within these bounds (a handful of lucky units can make it
#: tiny or huge; real games stay well inside).
DISPERSION_MIN = 0.25
DISPERSION_MAX = 4.0
#: Provisional while fewer units than this, or while the deviation is above
#: PROVISIONAL_DEVIATION (a 95% interval wider than about +-200 Elo).
PROVISIONAL_UNITS = 10
PROVISIONAL_DEVIATION = 100.0


@dataclass(frozen=True)
class Skill:
    """One bot's global rating state.

    ``elo``: the estimate; ``variance``: the model's variance of it (Elo squared);
    ``information`` and ``spread``: the sums over its units of the model's expected
    squared score (less each unit's leverage) and the observed one (their ratio is the
    dispersion); ``units``: the comparison units rated; ``decisive``: the
    sum over its units of the share of its pairwise results there that were not draws;
    ``records``: its Record per opponent version.
    """

    elo: float = START_ELO
    variance: float = START_DEVIATION**2
    information: float = 0.0
    spread: float = 0.0
    units: int = 0
    decisive: float = 0.0
    records: Mapping[Any, Record] = field(default_factory=dict)

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
