"""A rated match's result applied to the global rating: the bots' rating rows locked, one
update per comparison unit (tournaments.rating.model.global_rating), their records, pairwise
counts and history rows written in the result's transaction (see docs/ratings.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db.models import Max

from tournaments.models import BotVersion, Match, Rating, RatingHistory, RatingRecord
from tournaments.rating.model import global_rating, results
from tournaments.rating.model.units import placings


def rate_match(match: Match, versions: Sequence[BotVersion], places: Sequence[int]) -> None:
    """Move the global rating of the match's bots, holding their rating rows locked.

    One update per comparison unit of the match (``match.units``: its games, or its
    duplicate deals), in their stored order (tournaments.rating.model.global_rating), a bot whose
    version no earlier rated match had widened first (global_rating.new_version); one history
    row per bot for the match. ``rating_seq`` records the order: a match sharing a bot with an
    earlier one waits for its lock, so it reads a larger sequence number; equal numbers
    only go to matches with no bot in common, whose updates commute (recompute_ratings
    relies on this).
    """
    bots = [version.bot for version in versions]
    Rating.objects.bulk_create(
        [Rating(bot=bot, game=bot.game, elo=results.START_ELO) for bot in bots],
        ignore_conflicts=True,
    )
    ids = sorted({bot.pk for bot in bots})
    locked = {r.bot_id: r for r in Rating.objects.select_for_update().filter(bot_id__in=ids)}
    match.rating_seq = (Match.objects.aggregate(seq=Max("rating_seq"))["seq"] or 0) + 1
    seats = tuple(bot.pk for bot in bots)
    placing = results.Placing(seats, tuple(places))
    records = RatingRecord.of(ids)
    before = {pk: r.skill(records[pk]) for pk, r in locked.items()}
    after = global_rating.rate_units(
        before,
        rated_units(seats, places, match.units),
        first_rated(versions),
        versions={version.bot_id: version.pk for version in versions},
    )
    store_records(before, after)
    count_record(locked, placing)
    for pk, rating in locked.items():
        rating.matches += 1
        new = after.get(pk, before[pk])
        RatingHistory.objects.create(
            bot_id=pk,
            match=match,
            game=match.game,
            seq=rating.matches,
            before=rating.elo,
            after=new.elo,
            deviation=new.deviation,
        )
        rating.set_skill(new)
        rating.save(update_fields=[*RECORD_FIELDS, *SKILL_FIELDS, "matches", "updated_at"])


def store_records(
    before: Mapping[int, global_rating.Skill], after: Mapping[int, global_rating.Skill]
) -> None:
    """Write the records a rating update changed (those of the match's opponents, or all
    of a bot's at its new version's first match), inserted or updated in one statement."""
    rows = [
        RatingRecord(bot_id=pk, opponent_id=other, **r._asdict())
        for pk, state in after.items()
        for other, r in state.records.items()
        if before[pk].records.get(other) != r
    ]
    RatingRecord.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=("bot", "opponent"),
        update_fields=global_rating.Record._fields,
    )


def first_rated(versions: Sequence[BotVersion]) -> set[int]:
    """The bots (ids) of those versions that no rated match has rated before, whose flag
    (BotVersion.ever_rated) is then set: two primary-key statements at any history size.
    Read under the bots' rating locks, so a match of these versions rated before has
    committed its flag, as recompute_ratings sees it in rating order."""
    ids = {version.pk for version in versions}
    new = set(BotVersion.objects.filter(pk__in=ids, ever_rated=False).values_list("pk", flat=True))
    if new:
        BotVersion.objects.filter(pk__in=new).update(ever_rated=True)
    return {version.bot_id for version in versions if version.pk in new}


#: The rating row's state of the global rating (tournaments.rating.model.global_rating.Skill).
SKILL_FIELDS = ("elo", "deviation", "units", "variance", "information", "spread", "decisive")


def rated_units(
    seats: Sequence[int], places: Sequence[int], stored: str
) -> list[results.Placing[int]]:
    """A rated match's comparison units by bot id: its stored units, or, for a match
    stored without any, its places over all its games as one unit."""
    return placings(seats, stored) or [results.Placing(tuple(seats), tuple(places))]


#: The rating row's pairwise record, kept with each rated result (see count_record).
RECORD_FIELDS = ("wins", "draws", "losses")


def count_record(rows: dict[int, Rating], placing: results.Placing[int]) -> None:
    """Add one rated result's pairwise wins, draws and losses to the bots' rating rows."""
    for a, b, score in results.pairwise(placing.seats, placing.places):
        for bot_id, mine in ((a, score), (b, 1.0 - score)):
            row = rows[bot_id]
            if mine == 1.0:
                row.wins += 1
            elif mine == 0.0:
                row.losses += 1
            else:
                row.draws += 1
