"""Global ratings recomputed from the stored match history (see docs/ratings.md).

The history is replayed as it streams (``history``: in rating order, one state per bot
held, never the whole history), in this process or one game per worker process
(``game_processes``); the result is compared with the stored rows, or replaces them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Exists, OuterRef
from django.utils import timezone

from tournaments.rating.model import global_rating
from tournaments.rating.stored import bulk_rows, game_processes, match_rating
from tournaments.rating.stored.history import (
    CHUNK,
    Change,
    Placing,
    Replayed,
    model_of,
    rated_matches,
    replay,
)


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


def recompute(
    on_change: Callable[[Change], None] | None = None,
    progress: Callable[[int], None] | None = None,
    every: int = 50_000,
    on_placing: Callable[[Placing], None] | None = None,
    apps: Any = None,
    processes: int = 1,
) -> Recomputed:
    """Replay every rated match (``replay``) and compare the result with what is stored.

    ``on_change`` receives each rating change as it is made (to store the history);
    ``progress`` the number of matches replayed, every ``every`` matches; ``on_placing``
    each rated match's placing (to count the stored wins, draws and losses).
    ``processes`` > 1 replays the games in that many worker processes (game_processes:
    the same states; each bot's changes still come in its order) on PostgreSQL with the
    installed models; elsewhere the replay runs here.
    """

    def on_match(placing: Placing, changes: list[Change], replayed: int) -> None:
        if on_placing is not None:
            on_placing(placing)
        if on_change is not None:
            for change in changes:
                on_change(change)
        if progress is not None and replayed % every == 0:
            progress(replayed)

    if processes > 1 and apps is None and connection.vendor == "postgresql":
        state = _replay_in_processes(processes, on_match)
    else:
        counter = itertools.count(1)
        state = replay(rated_matches(apps), lambda p, c: on_match(p, c, next(counter)))
    current, counts, replayed = state.current, state.counts, state.replayed
    rated_versions = state.rated_versions
    fields = stored_fields(apps)
    stored_rows = model_of(apps, "Rating").objects.values_list("bot_id", *fields)
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


def _replay_in_processes(
    processes: int, on_match: Callable[[Placing, list[Change], int], None]
) -> Replayed:
    """``replay`` of each game in a worker process (game_processes), the games dealt by
    their seats (the fit's work grows with them); the workers' states joined."""
    Match = model_of(None, "Match")
    rated = Match.objects.filter(status="done", rating_seq__isnull=False)
    weights = dict(rated.values("game").annotate(n=Count("seats")).values_list("game", "n"))
    groups = game_processes.deal(weights, processes)
    keys = ("NAME", "USER", "PASSWORD", "HOST", "PORT", "OPTIONS")
    database = {key: connection.settings_dict[key] for key in keys}
    joined = Replayed()
    for part in game_processes.replay(groups, database, on_match):
        if joined.current.keys() & part.current.keys():
            raise RuntimeError("a bot is rated in two games' matches: use one process")
        joined.current.update(part.current)
        joined.counts.update(part.counts)
        joined.replayed += part.replayed
        joined.rated_versions |= part.rated_versions
    return joined


def _flag_differences(rated_versions: set[int], apps: Any) -> set[int]:
    """The versions flagged ``ever_rated`` that the history never rated, and those it
    rated that are not flagged (none before migration 0015: no flag)."""
    BotVersion = model_of(apps, "BotVersion")
    if not _has_flag(BotVersion):
        return set()
    flagged = set(BotVersion.objects.filter(ever_rated=True).values_list("pk", flat=True))
    return flagged ^ rated_versions


def _has_flag(model: Any) -> bool:
    return "ever_rated" in {f.name for f in model._meta.get_fields()}


def _has_records(apps: Any) -> bool:
    """Whether the registry has RatingRecord (migrations before 0012 do not)."""
    try:
        model_of(apps, "RatingRecord")
    except LookupError:
        return False
    return True


def _record_differences(current: dict[int, global_rating.Skill], apps: Any) -> set[int]:
    """The bots whose stored records differ from ``current``'s, compared bot by bot as
    they stream in order (never all held)."""
    if not _has_records(apps):
        return set()
    rows = (
        model_of(apps, "RatingRecord")
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
    names = {f.name for f in model_of(apps, "Rating")._meta.get_fields()}
    return tuple(name for name in STATE if name in names)


def _state(s: global_rating.Skill, fields: tuple[str, ...] = STATE) -> tuple[float, ...]:
    return tuple(getattr(s, name) for name in fields)


@transaction.atomic
def recompute_and_store(
    progress: Callable[[int], None] | None = None,
    every: int = 50_000,
    apps: Any = None,
    processes: int = 1,
) -> Recomputed:
    """Replace every rating and the rating history with the recomputed ones.

    The history is written in batches while the replay streams (bulk_rows: COPY on
    PostgreSQL), so it is never held whole; each bot's rows are numbered (seq) and its
    wins, draws and losses counted on the way. ``apps``: a migration's app registry
    (migration 0008 runs this), else the installed models. ``processes``: as
    ``recompute``'s (the workers replay, this transaction writes what they send).
    """
    Rating, RatingHistory = model_of(apps, "Rating"), model_of(apps, "RatingHistory")
    games = dict(model_of(apps, "Bot").objects.values_list("pk", "game"))
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

    report = recompute(keep, progress, every, on_placing=count, apps=apps, processes=processes)
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
        _store_records(report.skills, model_of(apps, "RatingRecord"))
    mark_rated_versions(apps)
    return report


#: The columns of a rating history row that recompute_and_store writes, in order.
HISTORY = ("bot_id", "match_id", "game", "seq", "before", "after", "created_at")


def mark_rated_versions(apps: Any = None) -> int:
    """Set each version's ``ever_rated`` from the history (a version with a rated match
    has it), as match_rating.rate_match keeps it; how many versions have it. A registry before
    migration 0015 has no such field: nothing to do."""
    BotVersion = model_of(apps, "BotVersion")
    if not _has_flag(BotVersion):
        return 0
    rated = model_of(apps, "Seat").objects.filter(
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
