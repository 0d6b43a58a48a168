"""The stored matches as the audits read them: every finished duplicate match of a game,
with the version at each seat, streamed in chunks (a site's history does not fit in
memory as Match rows; only the columns the audits need are fetched)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter

from tournaments.fairplay.rotation_order import StoredMatch
from tournaments.models import BotVersion, Match, Seat

#: Matches fetched per round trip.
CHUNK = 2000


def finished(game: str, duplicate: bool = True) -> Iterator[StoredMatch]:
    """Every finished match of ``game`` (only the duplicate ones, by default), rated or
    not (a duel or a quick match shows cheating as well as a ladder match), by id."""
    matches = Match.objects.filter(game=game, status=Match.Status.DONE)
    if duplicate:
        matches = matches.filter(duplicate=True)
    rows = matches.order_by("id").values_list("id", "duplicate", "result", "faults")
    chunk: list[tuple[int, bool, dict | None, list | None]] = []
    for row in rows.iterator(CHUNK):
        chunk.append(row)
        if len(chunk) >= CHUNK:
            yield from _with_seats(chunk)
            chunk = []
    yield from _with_seats(chunk)


def _with_seats(chunk: list[tuple[int, bool, dict | None, list | None]]) -> Iterator[StoredMatch]:
    if not chunk:
        return
    seats = (
        Seat.objects.filter(match_id__in=[row[0] for row in chunk])
        .order_by("match_id", "index")
        .values_list("match_id", "version_id")
    )
    versions = {
        match_id: tuple(v for _, v in rows) for match_id, rows in groupby(seats, itemgetter(0))
    }
    for match_id, duplicate, result, faults in chunk:
        yield StoredMatch(
            match_id,
            versions.get(match_id, ()),
            duplicate,
            (result or {}).get("games") or [],
            faults or [],
        )


def house_versions(game: str) -> set[int]:
    """The versions of the game's house bots: the service's own code, honest by making."""
    found = BotVersion.objects.filter(bot__game=game).exclude(bot__house_policy="")
    return set(found.values_list("id", flat=True))
