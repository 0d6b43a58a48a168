"""A tournament's table from its stored matches: points, places, head-to-head and Elo.

Points and the head-to-head table count each match once (its places over all its games;
in a duplicate match those totals already cover every rotation of every deal, so they
compare the bots on the same cards). The Elo fit uses more evidence: the match's stored
comparison units (rating.model.units: every game, or every duplicate deal summed over its
rotations). Only the places, the units and the seats are read, never the games or the
replay; the fitted table is cached (TournamentTable) until another match finishes.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from tournaments.models import BotVersion, Match, Seat, Tournament, TournamentTable
from tournaments.rating.model import results, tournament_fit, units

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Table:
    """Standings best first, head-to-head by version id, and the versions by id."""

    rows: list[tournament_fit.Standing[int]]
    head_to_head: dict[int, dict[int, tournament_fit.HeadToHead]]
    versions: dict[int, BotVersion]
    matches_done: int


def tournament_table(tournament: Tournament) -> Table:
    """The table after the matches finished so far, from the cached fit when possible.

    The process that stores a result refreshes the cache right after it commits
    (``refresh_table``), so a page of a running tournament reads the cache even when a
    result newer than it is in flight (it is at most a moment behind) and never fits.
    A finished or cancelled tournament's table is always current: refitted if stale.
    """
    versions = {v.pk: v for v in entrants(tournament)}
    cached = TournamentTable.objects.filter(tournament=tournament).first()
    if cached is not None:
        if tournament.status == Tournament.Status.RUNNING:
            return _from_cache(cached, versions)
        done = tournament.matches.filter(status=Match.Status.DONE).count()
        if cached.done == done:
            return _from_cache(cached, versions)
    return _refit(tournament, versions)


def with_seated(
    rows: list[tournament_fit.Standing[int]], versions: dict[int, BotVersion]
) -> dict[int, BotVersion]:
    """The entrants and every other version a row of the table names: a match may seat a
    version that is not an entrant (data written by other means than start_tournament,
    a seeder's, an admin's), and its row must still have a bot to show (one query for
    those, bounded by the table's rows)."""
    missing = {row.participant for row in rows} - versions.keys()
    if not missing:
        return versions
    found = BotVersion.objects.filter(pk__in=missing).select_related("bot")
    return versions | {v.pk: v for v in found.defer("code", "check_report")}


def entrants(tournament: Tournament) -> QuerySet[BotVersion]:
    """The tournament's versions with their bots, without their code and check reports
    (up to 64 entrants' code would be read on every poll of the page)."""
    return tournament.participants.select_related("bot").defer("code", "check_report")


def refresh_table(tournament_id: int) -> None:
    """Fit the tournament's table again and cache it (after a result is stored)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is not None:
        _refit(tournament, {v.pk: v for v in entrants(tournament)})


def _refit(tournament: Tournament, versions: dict[int, BotVersion]) -> Table:
    rows, head, done = fit_table(tournament, versions)
    _store(tournament, done, rows, head)
    return Table(rows, head, with_seated(rows, versions), done)


def fit_table(
    tournament: Tournament, participants: Any
) -> tuple[
    list[tournament_fit.Standing[int]], dict[int, dict[int, tournament_fit.HeadToHead]], int
]:
    """Standings, head-to-head and the number of finished matches read, from the units
    (a finished match with no places for its seats counts for no one: logged)."""
    per_match = []
    per_unit = []
    read = 0
    for match_id, seats, places, text in _finished(tournament):
        read += 1
        if not seats or len(places) != len(seats):
            logger.warning(
                "match %s has %d places for %d seats", match_id, *map(len, (places, seats))
            )
            continue
        per_match.append(results.Placing(seats, places))
        per_unit += units.placings(seats, text) if text else [per_match[-1]]
    rows = tournament_fit.standings(per_match, participants, games=per_unit)
    return rows, tournament_fit.head_to_head(per_match), read


def _finished(
    tournament: Tournament,
) -> Iterator[tuple[int, tuple[int, ...], tuple[int, ...], str]]:
    """(match id, version per seat, places, encoded units) of each finished match, in
    match order.

    The matches are read before their seats: a match that finishes between the two reads
    is then either in both or only among the seats (ignored). Read the other way round, a
    match finishing in between came with no seats, counted as read but for no one, and the
    finished tournament's cached table kept it missing (the stack test's standings summed
    10 seats for 12)."""
    finished = list(
        tournament.matches.filter(status=Match.Status.DONE)
        .order_by("number", "id")
        .values_list("id", "result__places", "units")
    )
    seats: dict[int, list[int]] = defaultdict(list)
    for match_id, version_id in (
        Seat.objects.filter(match__tournament=tournament, match__status=Match.Status.DONE)
        .order_by("match_id", "index")
        .values_list("match_id", "version_id")
    ):
        seats[match_id].append(version_id)
    for match_id, places, text in finished:
        yield match_id, tuple(seats[match_id]), tuple(places or ()), text


def _store(
    tournament: Tournament,
    done: int,
    rows: list[tournament_fit.Standing[int]],
    head: dict[int, dict[int, tournament_fit.HeadToHead]],
) -> None:
    """Keep the fit for the next request, unless a fit of more matches is stored already
    (two workers finishing at once may store in either order)."""
    data = {
        "done": done,
        "rows": [asdict(row) for row in rows],
        "head_to_head": [
            [a, b, h.points, h.pairs] for a, row in head.items() for b, h in row.items()
        ],
    }
    cached = TournamentTable.objects.filter(tournament=tournament)
    if cached.filter(done__lte=done).update(**data) or cached.exists():
        return
    try:
        with transaction.atomic():
            TournamentTable.objects.create(tournament=tournament, **data)
    except IntegrityError:
        pass  # a racing request created the row first


def _from_cache(cached: TournamentTable, versions: dict[int, BotVersion]) -> Table:
    rows = [tournament_fit.Standing(**row) for row in cached.rows]
    head: dict[int, dict[int, tournament_fit.HeadToHead]] = defaultdict(dict)
    for a, b, points, pairs in cached.head_to_head:
        head[a][b] = tournament_fit.HeadToHead(points, pairs)
    return Table(rows, dict(head), with_seated(rows, versions), cached.done)
