"""The rated history as the ratings read it, and its replay into global ratings.

The data every rating is a view of (tournaments.rating.model.results) is stored as the
finished matches' places and units; this module streams the rated ones in rating order
(two server-side cursors over only the columns needed: each match's places and stored
units, and its seats' bots and versions), so memory does not grow with its length, and
replays them with the update the service uses (``global_rating.rate_units``): one rating
state per bot is held, with its records (one per opponent version it met), and the set of
versions rated, to widen a bot at its new version's first match. ``recompute`` compares
and stores what a replay gives; ``game_processes`` runs one in each worker process.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from django.apps import apps as installed

from tournaments.rating.model import global_rating, results
from tournaments.rating.stored import match_rating

#: Rows fetched per round trip while streaming the history.
CHUNK = 2000

Change = tuple[int, int, float, float]  # match id, bot id, before, after
Placing = results.Placing[int]


def model_of(apps: Any, name: str) -> Any:
    """A model of this app: the installed one, or a migration's historical one."""
    return (apps or installed).get_model("tournaments", name)


Rated = tuple[int, results.Placing[int], list[Placing], tuple[int, ...]]


def rated_matches(apps: Any = None, games: Collection[str] | None = None) -> Iterator[Rated]:
    """(match id, placing by bot id, its rated units, the version id of each seat) of
    every rated match, in rating order, streamed. ``apps``: a migration's app registry
    (else the installed models); ``games``: only those games' matches."""
    order = ("rating_seq", "id")
    Seat = model_of(apps, "Seat")
    rated = model_of(apps, "Match").objects.filter(status="done", rating_seq__isnull=False)
    if games is not None:
        rated = rated.filter(game__in=list(games))
    places = rated.order_by(*order).values_list("id", "result__places", "units").iterator(CHUNK)
    seats = (
        Seat.objects.filter(match__in=rated)
        .order_by(*(f"match__{o}" for o in order), "index")
        .values_list("match_id", "version__bot_id", "version_id")
        .iterator(CHUNK)
    )
    bots = groupby(seats, key=lambda row: row[0])
    for match_id, match_places, stored in places:
        seat_match, rows = next(bots)
        if seat_match != match_id:
            raise RuntimeError(f"match {match_id} has no seats in the rating order")
        seats_of = list(rows)
        seated = tuple(bot for _, bot, _ in seats_of)
        units = match_rating.rated_units(seated, match_places, stored)
        versions = tuple(version for _, _, version in seats_of)
        yield match_id, results.Placing(seated, tuple(match_places)), units, versions


@dataclass
class Replayed:
    """Where a replay of the history ends: each bot's state (``current``) and rated
    matches (``counts``), the matches replayed and the versions rated."""

    current: dict[int, global_rating.Skill] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)
    replayed: int = 0
    rated_versions: set[int] = field(default_factory=set)


def replay(rows: Iterable[Rated], on_match: Callable[[Placing, list[Change]], None]) -> Replayed:
    """Replay ``rows`` from START_ELO with the update the service uses (a bot whose
    version was never rated before is widened first, as match_rating.rate_match does);
    ``on_match`` receives each match's placing and its rating changes, as made."""
    state = Replayed()
    current, counts = state.current, state.counts
    for match_id, placing, units, versions in rows:
        by_bot = dict(zip(placing.seats, versions, strict=True))
        new = {bot for bot, version in by_bot.items() if version not in state.rated_versions}
        state.rated_versions.update(versions)
        after = global_rating.rate_units(current, units, new, versions=by_bot)
        changes = []
        for bot_id in dict.fromkeys(placing.seats):
            before = current.get(bot_id, global_rating.Skill())
            after.setdefault(bot_id, before)
            changes.append((match_id, bot_id, before.elo, after[bot_id].elo))
            counts[bot_id] = counts.get(bot_id, 0) + 1
        current.update(after)
        state.replayed += 1
        on_match(placing, changes)
    return state


def replay_games(
    games: Collection[str], on_match: Callable[[Placing, list[Change]], None]
) -> Replayed:
    """``replay`` of only these games' matches (a worker of game_processes)."""
    return replay(rated_matches(games=games), on_match)
