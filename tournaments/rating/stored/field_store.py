"""The field of one game as the database holds it, for pages that ask "is A better than B?".

``rating.model.field`` works on rating states with their records; this module loads them: every
rated bot of the game (``Rating``), its records (``RatingRecord``, keyed by opponent
version) and which version each bot's rating now follows (its latest version that has
been rated), so that a record of that version links the two bots' ratings and a record of
an earlier version stays a fixed opponent, read where it was last met. Three queries,
bounded by the game's rated bots and their records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import NamedTuple

import numpy as np
from django.db import connection
from django.db.models import QuerySet

from tournaments.models import BotVersion, FieldPass, Match, Rating, RatingRecord, Seat
from tournaments.rating.model import field, field_dispersion
from tournaments.rating.model.results import Placing
from tournaments.rating.stored import match_rating

#: The field pass measures the game's dispersion over its most recent rated matches, at
#: most this many (a few thousand units are plenty; the pass reads no more of a large
#: site's history than this).
RECENT_MATCHES = 20_000
#: What a pass stores beside the views (``FieldPass``) for a page that fits on the spot:
#: the field's spread, the scales of its fit's bias reduction and the share of its
#: penalty-fixed noise in the deviations (``field.Field``).
PASS_FIGURES = ("spread", "bias_scale", "posterior_scale", "sandwich")


class Recent(NamedTuple):
    """The units a field pass measures the dispersion on, and the share of them that the
    ladder's matchmaker seated (``field_bias.sandwich_share``)."""

    units: list[Placing[int]]
    chosen: float


def game_field(
    game: str,
    whole: bool = True,
    bots: Collection[int] | None = None,
    recent: Recent | None = None,
) -> field.Field[int]:
    """The joint view (``field.field_of``) of every rated bot of ``game``, by bot id:
    refitted as a whole when ``whole``, else at the stored ratings. ``recent``: refitted
    with the dispersion its units show (``field_dispersion.measured_field``; the field
    pass gives it the game's recent ones, and measures the field's spread); without, each
    bot's dispersion and the field's spread as the last pass measured them
    (``FieldRating.dispersion``, ``FieldPass.spread``), its stored one's where none, and
    its bias reduced and its deviations read as the pass's were (``FieldPass.bias_scale``,
    ``sandwich``: a page reads the figures the pass showed).

    ``bots``: only these bots are fitted together; every other opponent stays where each
    record last met it. A page's cost is then bounded by the bots it shows, not by the
    game's field (the whole field of a big site takes seconds to refit)."""
    stored, measured = game_records(game, bots)
    if recent is not None:
        return field_dispersion.measured_field(stored, recent.units, chosen=recent.chosen)
    figures = FieldPass.objects.filter(game=game).values(*PASS_FIGURES).first()
    figures = figures or dict.fromkeys(PASS_FIGURES)
    found = field.field_of(
        stored,
        whole=whole,
        dispersion=measured,
        reduce_bias=figures["bias_scale"] is not None,
        bias_scale=figures["bias_scale"] or 1.0,
        posterior_scale=figures["posterior_scale"],
    )
    return dataclasses.replace(found, spread=figures["spread"], sandwich=figures["sandwich"] or 0.0)


def game_records(
    game: str, bots: Collection[int] | None = None
) -> tuple[field.Stored[int], dict[int, float]]:
    """The game's rated bots (or those of ``bots``) and their records as arrays
    (``field.Stored``, in bot id order), each record linked to the bot whose current
    version it met; and each bot's dispersion as the last pass measured it, where it
    did. Three queries; the records, the bulk (1.6 million at 20,000 bots of 80
    opponents), come as one binary COPY read straight into arrays: no Python object per
    record (they were 20 of a 20,000-bot pass's 150 s, and most of its memory)."""
    ratings = Rating.objects.filter(game=game)
    if bots is not None:
        ratings = ratings.filter(bot_id__in=list(bots))
    rows = list(
        ratings.order_by("bot_id").values_list("bot_id", "elo", "variance", "field__dispersion")
    )
    keys = [row[0] for row in rows]
    measured = {row[0]: row[3] for row in rows if row[3] is not None}
    records = _records(RatingRecord.objects.filter(bot_id__in=ratings.values("bot_id")))
    ids = np.asarray(keys, dtype=np.int64)
    bot = np.searchsorted(ids, records["bot_id"].astype(np.int64))
    versions = current_versions(keys)
    version_ids = np.asarray(sorted(versions), dtype=np.int64)
    version_bots = np.searchsorted(ids, [versions[v] for v in version_ids.tolist()])
    opponent = records["opponent_id"].astype(np.int64)
    at = np.minimum(np.searchsorted(version_ids, opponent), max(len(version_ids) - 1, 0))
    other = np.full(len(bot), -1, dtype=np.int64)
    if len(version_ids):
        known = version_ids[at] == opponent
        other[known] = version_bots[at[known]]
    other[other == bot] = -1
    stored = field.Stored(
        keys,
        np.fromiter((row[1] for row in rows), float, len(rows)),
        np.fromiter((row[2] for row in rows), float, len(rows)),
        bot.astype(np.int64),
        other,
        records["results"].astype(float),
        records["score"].astype(float),
        records["seen"].astype(float),
    )
    return stored, measured


#: Each column of the records: its name and how PostgreSQL's binary form of an array
#: holds each element (its length, then its value, big-endian).
_COLUMNS = (
    ("bot_id", ">i8"),
    ("opponent_id", ">i8"),
    ("results", ">f8"),
    ("score", ">f8"),
    ("seen", ">f8"),
)
#: The binary array's header: dimensions, flags, element type, length, lower bound.
_ARRAY_HEADER = 20


def _records(records: QuerySet[RatingRecord]) -> dict[str, np.ndarray]:
    """The records' bot, opponent version, results, score and seen as arrays, by column
    name (in the same order, no order asked). On PostgreSQL one row of five binary arrays
    (``array_send``) read straight into numpy: a COPY or a cursor hands Python one
    message per row (27 s for 1.6 million rows at load 20); elsewhere, rows."""
    names = [name for name, _ in _COLUMNS]
    ordered = records.order_by().values_list(*names)
    if connection.vendor != "postgresql":
        rows = list(ordered)
        return {
            name: np.asarray([row[i] for row in rows], dtype=kind[1:])
            for i, (name, kind) in enumerate(_COLUMNS)
        }
    sql, params = ordered.query.sql_with_params()
    kinds = {">i8": "int8", ">f8": "float8"}
    arrays = ", ".join(f"array_send(array_agg({name}::{kinds[kind]}))" for name, kind in _COLUMNS)
    # One pass of aggregates: the five arrays hold the rows in the same order.
    statement = f"SELECT {arrays} FROM ({sql}) AS r"
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        sent = cursor.fetchone()
    found = {}
    for (name, kind), data in zip(_COLUMNS, sent, strict=True):
        element = np.dtype([("length", ">i4"), ("value", kind)])
        if data is None or len(data) <= _ARRAY_HEADER - 8:
            found[name] = np.zeros(0, dtype=kind[1:])
            continue
        count = (len(data) - _ARRAY_HEADER) // element.itemsize
        values = np.frombuffer(data, dtype=element, count=count, offset=_ARRAY_HEADER)["value"]
        found[name] = values.astype(kind[1:])
    return found


def current_versions(bot_ids: Collection[int]) -> dict[int, int]:
    """Version id -> bot id for each bot's latest rated version (the one its rating
    follows now)."""
    latest: dict[int, int] = {}
    rated = BotVersion.objects.filter(bot_id__in=bot_ids, ever_rated=True)
    for version_id, bot_id in rated.order_by("bot_id", "number").values_list("id", "bot_id"):
        latest[bot_id] = version_id
    return {version: bot for bot, version in latest.items()}


def compare(game: str, a: int, b: int) -> field.Difference | None:
    """Is bot ``a`` better than bot ``b`` at ``game``? Their difference with its joint
    95% interval and the probability that ``a`` is the stronger; None when either has
    no rating yet."""
    found = game_field(game)
    if a not in found.elo or b not in found.elo:
        return None
    return found.difference(a, b)


def recent_units(game: str, matches: int = RECENT_MATCHES) -> Recent:
    """The rated units, by bot id, of the game's ``matches`` most recently rated matches:
    what the field pass measures the dispersion on (``rating.model.field_dispersion``),
    and the share of them the ladder seated. Two queries."""
    rated = Match.objects.filter(game=game, status="done", rating_seq__isnull=False)
    columns = ("id", "result__places", "units", "rating_seq", "ladder_id")
    rows = list(rated.order_by("-rating_seq").values_list(*columns)[:matches])
    if not rows:
        return Recent([], 0.0)
    seats: dict[int, list[int]] = {}
    found = Seat.objects.filter(match__in=rated.filter(rating_seq__gte=rows[-1][3])).order_by(
        "match_id", "index"
    )
    for match_id, bot_id in found.values_list("match_id", "version__bot_id"):
        seats.setdefault(match_id, []).append(bot_id)
    units: list[Placing[int]] = []
    seated = 0
    for match_id, places, stored, _, ladder in rows:
        if places and match_id in seats:
            rated_units = match_rating.rated_units(seats[match_id], places, stored)
            units += rated_units
            seated += len(rated_units) if ladder is not None else 0
    return Recent(units, seated / len(units) if units else 0.0)
