"""The tournament form's estimate, shown before it starts: how many matches and games a
round robin makes, and about how long they take at the pace of the game's recent matches."""

from __future__ import annotations

from dataclasses import dataclass

from judge.referee import rotations
from tournaments.competitions.schedule import tables_per_round
from tournaments.models import Match, Seat

#: Recent finished matches of the game that set the pace.
SAMPLE = 50


@dataclass(frozen=True)
class Estimate:
    entrants: int
    size: int
    matches: int
    games: int  # in all: each match plays its games once per seating when duplicate
    exact: bool  # False: the balanced schedule may add a few matches
    per_game: float | None  # seconds, from the recent matches; None: none timed yet

    @property
    def seconds(self) -> float | None:
        return None if self.per_game is None else self.per_game * self.games

    @property
    def duration(self) -> str:
        """The play time in words ("12 min"), or "" when it is not known."""
        return "" if self.seconds is None else spoken(self.seconds)


def estimate(
    game: str, entrants: int, size: int, rounds: int, games: int, duplicate: bool
) -> Estimate:
    tables, exact = tables_per_round(entrants, size)
    seatings = len(rotations(size)) if duplicate and size >= 2 else 1
    matches = tables * rounds
    return Estimate(
        entrants, size, matches, matches * games * seatings, exact, seconds_per_game(game)
    )


def seconds_per_game(game: str) -> float | None:
    """Wall-clock seconds per game over the game's last SAMPLE finished matches (a range of
    the (game, id) index, and their seats for the duplicate ones), or None."""
    recent = list(
        Match.objects.filter(game=game, status=Match.Status.DONE, started_at__isnull=False)
        .exclude(finished_at=None)
        .order_by("-id")
        .values_list("id", "started_at", "finished_at", "games", "duplicate")[:SAMPLE]
    )
    if not recent:
        return None
    duplicates = [match_id for match_id, *_, duplicate in recent if duplicate]
    seats: dict[int, int] = {}
    for match_id in Seat.objects.filter(match_id__in=duplicates).values_list("match_id", flat=True):
        seats[match_id] = seats.get(match_id, 0) + 1
    played = sum(
        games * (len(rotations(seats[match_id])) if match_id in seats else 1)
        for match_id, _, _, games, _ in recent
    )
    took = sum((end - start).total_seconds() for _, start, end, _, _ in recent if start and end)
    return took / played if played else None


def spoken(seconds: float) -> str:
    """A duration in words people read at a glance: "40 s", "12 min", "2.5 h"."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
