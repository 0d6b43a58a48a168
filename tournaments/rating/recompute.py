"""Global ratings recomputed from the stored match history (see docs/ratings.md).

The history is streamed in rating order (two server-side cursors over only the columns
needed: each match's places and stored units, and its seats' bots and versions), so memory
does not grow with its length: one rating state per bot is held, with its records (one per
opponent version it met), and the set of versions rated, to widen a bot at its new version's first
match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from django.apps import apps as installed
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from tournaments.rating import bulk_rows, global_rating, match_rating, tournament_fit

#: Rows fetched per round trip while streaming the history.
CHUNK = 2000

Change = tuple[int, int, float, float]  # match id, bot id, before, after
Placing = tournament_fit.Placing[int]


@dataclass(frozen=True)
class Recomputed:
    """Ratings from the history, how many matches rated each bot, and where they differ.

    ``ratings``: each bot's elo; ``skills``: its whole state; ``differences``: per bot,
    the stored and the recomputed state (elo, deviation, units, variance, information,
    spread, decisive) where any of them differs; ``record_differences``: the bots whose
    stored records (global_rating.Record per opponent) differ from the recomputed ones;
    ``flag_differences``: the versions whose ``ever_rated`` flag differs from the history
    (the next result of one would widen its bot, or not, unlike the replay).
    """

    ratings: dict[int, float]
    skills: dict[int, global_rating.Skill]
    counts: dict[int, int]
    differences: dict[int, tuple[tuple[float, ...] | None, tuple[float, ...] | None]]
    matches: int
    record_differences: set[int] = field(default_factory=set)
    flag_differences: set[int] = field(default_factory=set)


def _model(apps: Any, name: str) -> Any:
    """A model of this app: the installed one, or a migration's historical one."""
    return (apps or installed).get_model("tournaments", name)


Rated = tuple[int, tournament_fit.Placing[int], list[Placing], tuple[int, ...]]


def rated_matches(apps: Any = None) -> Iterator[Rated]:
    """(match id, placing by bot id, its rated units, the version id of each seat) of
    every rated match, in rating order, streamed. ``apps``: a migration's app registry
    (else the installed models)."""
    order = ("rating_seq", "id")
    Seat = _model(apps, "Seat")
    rated = _model(apps, "Match").objects.filter(status="done", rating_seq__isnull=False)
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
        yield match_id, tournament_fit.Placing(seated, tuple(match_places)), units, versions


def recompute(
    on_change: Callable[[Change], None] | None = None,
    progress: Callable[[int], None] | None = None,
    every: int = 50_000,
    on_placing: Callable[[Placing], None] | None = None,
    apps: Any = None,
) -> Recomputed:
    """Replay every rated match from START_ELO with the update the service uses (a bot
    whose version was never rated before is widened first, as match_rating.rate_match does).

    ``on_change`` receives each rating change as it is made (to store the history);
    ``progress`` the number of matches replayed, every ``every`` matches; ``on_placing``
    each rated match's placing (to count the stored wins, draws and losses).
    """
    current: dict[int, global_rating.Skill] = {}
    counts: dict[int, int] = {}
    replayed = 0
    rated_versions: set[int] = set()
    for match_id, placing, units, versions in rated_matches(apps):
        if on_placing is not None:
            on_placing(placing)
        by_bot = dict(zip(placing.seats, versions, strict=True))
        new = {bot for bot, version in by_bot.items() if version not in rated_versions}
        rated_versions.update(versions)
        after = global_rating.rate_units(current, units, new, versions=by_bot)
        for bot_id in dict.fromkeys(placing.seats):
            before = current.get(bot_id, global_rating.Skill())
            after.setdefault(bot_id, before)
            if on_change is not None:
                on_change((match_id, bot_id, before.elo, after[bot_id].elo))
            counts[bot_id] = counts.get(bot_id, 0) + 1
        current.update(after)
        replayed += 1
        if progress is not None and replayed % every == 0:
            progress(replayed)
    fields = stored_fields(apps)
    stored_rows = _model(apps, "Rating").objects.values_list("bot_id", *fields)
    stored = {row[0]: tuple(row[1:]) for row in stored_rows}
    fresh = {bot_id: _state(s, fields) for bot_id, s in current.items()}
    differences = {
        bot_id: (stored.get(bot_id), fresh.get(bot_id))
        for bot_id in set(stored) | set(fresh)
        if stored.get(bot_id) != fresh.get(bot_id)
    }
    elos = {bot_id: s.elo for bot_id, s in current.items()}
    mismatched = _record_differences(current, apps)
    flags = _flag_differences(rated_versions, apps)
    return Recomputed(elos, current, counts, differences, replayed, mismatched, flags)


def _flag_differences(rated_versions: set[int], apps: Any) -> set[int]:
    """The versions flagged ``ever_rated`` that the history never rated, and those it
    rated that are not flagged (none before migration 0015: no flag)."""
    BotVersion = _model(apps, "BotVersion")
    if not _has_flag(BotVersion):
        return set()
    flagged = set(BotVersion.objects.filter(ever_rated=True).values_list("pk", flat=True))
    return flagged ^ rated_versions


def _has_flag(model: Any) -> bool:
    return "ever_rated" in {f.name for f in model._meta.get_fields()}


def _has_records(apps: Any) -> bool:
    """Whether the registry has RatingRecord (migrations before 0012 do not)."""
    try:
        _model(apps, "RatingRecord")
    except LookupError:
        return False
    return True


def _record_differences(current: dict[int, global_rating.Skill], apps: Any) -> set[int]:
    """The bots whose stored records differ from ``current``'s, compared bot by bot as
    they stream in order (never all held)."""
    if not _has_records(apps):
        return set()
    rows = (
        _model(apps, "RatingRecord")
        .objects.order_by("bot_id", "opponent_id")
        .values_list("bot_id", "opponent_id", *global_rating.Record._fields)
        .iterator(CHUNK)
    )
    differ, stored = set(), set()
    for bot_id, group in groupby(rows, key=lambda row: row[0]):
        stored.add(bot_id)
        records = {row[1]: global_rating.Record(*row[2:]) for row in group}
        if bot_id not in current or records != dict(current[bot_id].records):
            differ.add(bot_id)
    return differ | {b for b, s in current.items() if s.records and b not in stored}


#: The stored columns of a rating's state, as compared.
STATE = ("elo", "deviation", "units", "variance", "information", "spread", "decisive")


def stored_fields(apps: Any = None) -> tuple[str, ...]:
    """The columns of STATE the Rating model has: all of them, or, in an earlier
    migration's registry (0008 runs this code), those it had then."""
    names = {f.name for f in _model(apps, "Rating")._meta.get_fields()}
    return tuple(name for name in STATE if name in names)


def _state(s: global_rating.Skill, fields: tuple[str, ...] = STATE) -> tuple[float, ...]:
    return tuple(getattr(s, name) for name in fields)


@transaction.atomic
def recompute_and_store(
    progress: Callable[[int], None] | None = None, every: int = 50_000, apps: Any = None
) -> Recomputed:
    """Replace every rating and the rating history with the recomputed ones.

    The history is written in batches while the replay streams (bulk_rows: COPY on
    PostgreSQL), so it is never held whole; each bot's rows are numbered (seq) and its
    wins, draws and losses counted on the way. ``apps``: a migration's app registry
    (migration 0008 runs this), else the installed models.
    """
    Rating, RatingHistory = _model(apps, "Rating"), _model(apps, "RatingHistory")
    games = dict(_model(apps, "Bot").objects.values_list("pk", "game"))
    rows = {pk: Rating(bot_id=pk, game=game) for pk, game in games.items()}
    RatingHistory.objects.all().delete()
    batch: list[tuple[Any, ...]] = []
    seq: dict[int, int] = {}
    now = timezone.now()

    def keep(change: Change) -> None:
        match_id, bot_id, before, after = change
        seq[bot_id] = seq.get(bot_id, 0) + 1
        batch.append((bot_id, match_id, games[bot_id], seq[bot_id], before, after, now))
        if len(batch) >= bulk_rows.BATCH:
            bulk_rows.write_rows(RatingHistory, HISTORY, batch)
            batch.clear()

    def count(placing: Placing) -> None:
        match_rating.count_record(rows, placing)

    report = recompute(keep, progress, every, on_placing=count, apps=apps)
    bulk_rows.write_rows(RatingHistory, HISTORY, batch)
    Rating.objects.all().delete()
    fields = stored_fields(apps)
    for bot_id, state in report.skills.items():
        row = rows[bot_id]
        for name, value in zip(fields, _state(state, fields), strict=True):
            setattr(row, name, value)
        row.matches = report.counts[bot_id]
    Rating.objects.bulk_create(rows[bot_id] for bot_id in report.ratings)
    if _has_records(apps):
        _store_records(report.skills, _model(apps, "RatingRecord"))
    mark_rated_versions(apps)
    return report


#: The columns of a rating history row that recompute_and_store writes, in order.
HISTORY = ("bot_id", "match_id", "game", "seq", "before", "after", "created_at")


def mark_rated_versions(apps: Any = None) -> int:
    """Set each version's ``ever_rated`` from the history (a version with a rated match
    has it), as match_rating.rate_match keeps it; how many versions have it. A registry before
    migration 0015 has no such field: nothing to do."""
    BotVersion = _model(apps, "BotVersion")
    if not _has_flag(BotVersion):
        return 0
    rated = _model(apps, "Seat").objects.filter(
        version=OuterRef("pk"), match__status="done", match__rating_seq__isnull=False
    )
    BotVersion.objects.update(ever_rated=Exists(rated))
    count: int = BotVersion.objects.filter(ever_rated=True).count()
    return count


def _store_records(skills: dict[int, global_rating.Skill], model: Any) -> None:
    """Replace every stored record with the recomputed ones (bulk_rows: in batches)."""
    model.objects.all().delete()
    rows = (
        (bot_id, other, *r)
        for bot_id, state in skills.items()
        for other, r in state.records.items()
    )
    bulk_rows.write_rows(model, ("bot_id", "opponent_id", *global_rating.Record._fields), rows)
