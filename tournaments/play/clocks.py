"""Clocks: each match's wall-clock budget (the standard clocks of rated play are in
tournaments.competitions.time_control).

A legal but slow bot could hold a worker for as long as its match has moves (0.4 s a move
for thousands of moves was 9 minutes a match). A match may use at most its budget: the
moves it can be expected to make at the per-move limit, the banks and start-ups of its
bots, capped by MATCH_BUDGET_CAP_SECONDS. The budget is the Celery soft time limit of that
match: the worker stops the match between moves when it is spent and closes its bots (the
match fails: "ran past its wall-clock budget"). Celery's soft and hard time limits of the
task come one and two MATCH_BUDGET_GRACE_SECONDS later, for a worker stuck elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from judge.games import moves_estimate as games_estimate
from judge.referee import TimeControl, rotations


def match_budget(
    game: str,
    players: int,
    games: int,
    duplicate: bool,
    time_control: Mapping[str, Any] | None,
    options: Mapping[str, Any] | None = None,
) -> int:
    """Seconds of wall clock the match may use (a whole number, at least 1): the moves the
    game itself estimates for these options and this table (judge.games.moves_estimate)."""
    clock = TimeControl.from_json(time_control) if time_control else TimeControl()
    blocks = len(rotations(players)) if duplicate else 1
    played = games * blocks
    moves = games_estimate(game, options, players) * played
    seconds = moves * clock.move_s + players * clock.bank_s + blocks * clock.startup_s
    return max(1, min(settings.MATCH_BUDGET_CAP_SECONDS, math.ceil(seconds)))


def time_limits(budget: int) -> dict[str, int]:
    """Celery's per-task limits for a match of ``budget`` seconds (apply_async keywords):
    backstops behind the worker's own stop at the budget."""
    grace = settings.MATCH_BUDGET_GRACE_SECONDS
    return {"soft_time_limit": budget + grace, "time_limit": budget + 2 * grace}


def plan_budget(plan: Any) -> int:
    """The budget of a runner.MatchPlan (the worker's copy of the stored match)."""
    return match_budget(
        plan.game, len(plan.seats), plan.games, plan.duplicate, plan.time_control, plan.options
    )
