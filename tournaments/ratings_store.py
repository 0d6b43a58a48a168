"""Global ratings recomputed from the stored match history (see docs/ratings.md)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from tournaments import ratings
from tournaments.models import Bot, Match, Rating, RatingHistory


@dataclass(frozen=True)
class Recomputed:
    """Ratings from the history, each rated match's changes, and where they differ."""

    ratings: dict[int, float]
    counts: dict[int, int]
    changes: list[tuple[int, int, float, float]]  # match id, bot id, before, after
    differences: dict[int, tuple[float | None, float | None]]
    matches: int


def rated_matches() -> list[tuple[int, str, ratings.Placing[int]]]:
    """(match id, game, placing by bot id) of every rated match, in rating order."""
    found = (
        Match.objects.filter(status=Match.Status.DONE, rating_seq__isnull=False)
        .order_by("rating_seq", "id")
        .prefetch_related("seats__version")
    )
    return [
        (
            match.pk,
            match.game,
            ratings.Placing(
                tuple(seat.version.bot_id for seat in match.seats.all()),
                tuple((match.result or {})["places"]),
            ),
        )
        for match in found
    ]


def recompute() -> Recomputed:
    current: dict[int, float] = {}
    counts: dict[int, int] = {}
    changes = []
    history = rated_matches()
    for match_id, _game, placing in history:
        after = ratings.elo_update(current, placing)
        for bot_id, elo in after.items():
            changes.append((match_id, bot_id, current.get(bot_id, ratings.START_ELO), elo))
            counts[bot_id] = counts.get(bot_id, 0) + 1
        current.update(after)
    stored = dict(Rating.objects.values_list("bot_id", "elo"))
    differences = {
        bot_id: (stored.get(bot_id), current.get(bot_id))
        for bot_id in set(stored) | set(current)
        if stored.get(bot_id) != current.get(bot_id)
    }
    return Recomputed(current, counts, changes, differences, len(history))


@transaction.atomic
def store_recomputed(report: Recomputed) -> None:
    """Replace every rating and the rating history with the recomputed ones."""
    games = dict(Bot.objects.filter(pk__in=report.ratings).values_list("pk", "game"))
    RatingHistory.objects.all().delete()
    Rating.objects.all().delete()
    Rating.objects.bulk_create(
        Rating(bot_id=bot_id, game=games[bot_id], elo=elo, matches=report.counts[bot_id])
        for bot_id, elo in report.ratings.items()
    )
    RatingHistory.objects.bulk_create(
        RatingHistory(bot_id=bot_id, match_id=match_id, game=games[bot_id], before=b, after=a)
        for match_id, bot_id, b, a in report.changes
    )
