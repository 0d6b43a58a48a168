"""Global ratings recomputed from the stored match history (see docs/ratings.md).

The history is streamed in rating order (two server-side cursors over only the columns
needed: each match's places, and its seats' bots), so memory stays constant whatever its
length; only one rating per bot is held.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import groupby

from django.db import transaction

from tournaments import ratings, services
from tournaments.models import Bot, Match, Rating, RatingHistory, Seat

#: Rows fetched per round trip while streaming the history.
CHUNK = 2000

Change = tuple[int, int, float, float]  # match id, bot id, before, after
Placing = ratings.Placing[int]


@dataclass(frozen=True)
class Recomputed:
    """Ratings from the history, how many matches rated each bot, and where they differ."""

    ratings: dict[int, float]
    counts: dict[int, int]
    differences: dict[int, tuple[float | None, float | None]]
    matches: int


def rated_matches() -> Iterator[tuple[int, ratings.Placing[int]]]:
    """(match id, placing by bot id) of every rated match, in rating order, streamed."""
    order = ("rating_seq", "id")
    rated = Match.objects.filter(status=Match.Status.DONE, rating_seq__isnull=False)
    places = rated.order_by(*order).values_list("id", "result__places").iterator(CHUNK)
    seats = (
        Seat.objects.filter(match__in=rated)
        .order_by(*(f"match__{o}" for o in order), "index")
        .values_list("match_id", "version__bot_id")
        .iterator(CHUNK)
    )
    bots = groupby(seats, key=lambda row: row[0])
    for match_id, match_places in places:
        seat_match, rows = next(bots)
        if seat_match != match_id:
            raise RuntimeError(f"match {match_id} has no seats in the rating order")
        yield match_id, ratings.Placing(tuple(bot for _, bot in rows), tuple(match_places))


def recompute(
    on_change: Callable[[Change], None] | None = None,
    progress: Callable[[int], None] | None = None,
    every: int = 50_000,
    on_placing: Callable[[Placing], None] | None = None,
) -> Recomputed:
    """Replay every rated match from START_ELO with the update the service uses.

    ``on_change`` receives each rating change as it is made (to store the history);
    ``progress`` the number of matches replayed, every ``every`` matches; ``on_placing``
    each rated match's placing (to count the stored wins, draws and losses).
    """
    current: dict[int, float] = {}
    counts: dict[int, int] = {}
    replayed = 0
    for match_id, placing in rated_matches():
        if on_placing is not None:
            on_placing(placing)
        after = ratings.elo_update(current, placing)
        for bot_id, elo in after.items():
            if on_change is not None:
                on_change((match_id, bot_id, current.get(bot_id, ratings.START_ELO), elo))
            counts[bot_id] = counts.get(bot_id, 0) + 1
        current.update(after)
        replayed += 1
        if progress is not None and replayed % every == 0:
            progress(replayed)
    stored = dict(Rating.objects.values_list("bot_id", "elo"))
    differences = {
        bot_id: (stored.get(bot_id), current.get(bot_id))
        for bot_id in set(stored) | set(current)
        if stored.get(bot_id) != current.get(bot_id)
    }
    return Recomputed(current, counts, differences, replayed)


@transaction.atomic
def recompute_and_store(
    progress: Callable[[int], None] | None = None, every: int = 50_000
) -> Recomputed:
    """Replace every rating and the rating history with the recomputed ones.

    The history is written in batches while the replay streams, so it is never held whole;
    each bot's rows are numbered (seq) and its wins, draws and losses counted on the way.
    """
    games = dict(Bot.objects.values_list("pk", "game"))
    rows = {pk: Rating(bot_id=pk, game=game) for pk, game in games.items()}
    RatingHistory.objects.all().delete()
    batch: list[RatingHistory] = []
    seq: dict[int, int] = {}

    def keep(change: Change) -> None:
        match_id, bot_id, before, after = change
        seq[bot_id] = seq.get(bot_id, 0) + 1
        batch.append(
            RatingHistory(
                bot_id=bot_id,
                match_id=match_id,
                game=games[bot_id],
                seq=seq[bot_id],
                before=before,
                after=after,
            )
        )
        if len(batch) >= CHUNK:
            RatingHistory.objects.bulk_create(batch)
            batch.clear()

    def count(placing: Placing) -> None:
        services.count_record(rows, placing)

    report = recompute(keep, progress, every, on_placing=count)
    RatingHistory.objects.bulk_create(batch)
    Rating.objects.all().delete()
    for bot_id, elo in report.ratings.items():
        rows[bot_id].elo = elo
        rows[bot_id].matches = report.counts[bot_id]
    Rating.objects.bulk_create(rows[bot_id] for bot_id in report.ratings)
    return report
