"""The standard time control of rated play: a competition's rule (a tournament with other
clocks is unrated), used by the ladder, the checks of new versions and the tournament pages.
The match budgets derived from a time control are tournaments.play.clocks'."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judge.referee import TimeControl


def standard_time_control(game: str = "") -> dict[str, float]:
    """The clocks of rated play (and of checks): the referee's defaults, the same for
    every game today. A tournament with other clocks is unrated."""
    return TimeControl().to_json()


def is_standard(time_control: Mapping[str, Any] | None, game: str = "") -> bool:
    """True when ``time_control`` is empty (the default) or equals the standard clocks."""
    if not time_control:
        return True
    standard = standard_time_control(game)
    try:
        return {key: float(time_control[key]) for key in standard} == standard and set(
            time_control
        ) == set(standard)
    except (KeyError, TypeError, ValueError):
        return False
