"""The field of one game as the database holds it, for pages that ask "is A better than B?".

``rating.model.field`` works on rating states with their records; this module loads them: every
rated bot of the game (``Rating``), its records (``RatingRecord``, keyed by opponent
version) and which version each bot's rating now follows (its latest version that has
been rated), so that a record of that version links the two bots' ratings and a record of
an earlier version stays a fixed opponent, read where it was last met. Three queries,
bounded by the game's rated bots and their records.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from tournaments.models import BotVersion, FieldRating, Match, Rating, RatingRecord, Seat
from tournaments.rating.model import field, field_dispersion
from tournaments.rating.model.results import Placing
from tournaments.rating.stored import match_rating

#: The field pass measures the game's dispersion over its most recent rated matches, at
#: most this many (a few thousand units are plenty; the pass reads no more of a large
#: site's history than this).
RECENT_MATCHES = 20_000


def game_field(
    game: str,
    whole: bool = True,
    bots: Collection[int] | None = None,
    units: Iterable[Placing[int]] | None = None,
) -> field.Field[int]:
    """The joint view (``field.field_of``) of every rated bot of ``game``, by bot id:
    refitted as a whole when ``whole``, else at the stored ratings. ``units``: refitted
    with the dispersion those units show (``field_dispersion.measured_field``; the field
    pass gives it the game's recent ones); without, each bot's dispersion as the last
    pass measured it (``FieldRating.dispersion``), its stored one's where none.

    ``bots``: only these bots are fitted together; every other opponent stays where each
    record last met it. A page's cost is then bounded by the bots it shows, not by the
    game's field (the whole field of a big site takes seconds to refit)."""
    ratings = Rating.objects.filter(game=game)
    if bots is not None:
        ratings = ratings.filter(bot_id__in=list(bots))
    rows = {r.bot_id: r for r in ratings.select_related("field")}
    records = RatingRecord.of(list(rows))
    skills = {pk: row.skill(records[pk]) for pk, row in rows.items()}
    if units is not None:
        return field_dispersion.measured_field(skills, units, current_versions(rows))
    return field.field_of(skills, current_versions(rows), whole, _measured(rows))


def _measured(rows: dict[int, Rating]) -> dict[int, float]:
    """Each bot's dispersion as the last field pass measured it, where it did."""
    found = {}
    for pk, row in rows.items():
        view: FieldRating | None = getattr(row, "field", None)
        if view is not None and view.dispersion is not None:
            found[pk] = view.dispersion
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


def recent_units(game: str, matches: int = RECENT_MATCHES) -> list[Placing[int]]:
    """The rated units, by bot id, of the game's ``matches`` most recently rated matches:
    what the field pass measures the dispersion on (``rating.model.field_dispersion``). Two
    queries."""
    rated = Match.objects.filter(game=game, status="done", rating_seq__isnull=False)
    rows = list(
        rated.order_by("-rating_seq").values_list("id", "result__places", "units", "rating_seq")[
            :matches
        ]
    )
    if not rows:
        return []
    seats: dict[int, list[int]] = {}
    found = Seat.objects.filter(match__in=rated.filter(rating_seq__gte=rows[-1][3])).order_by(
        "match_id", "index"
    )
    for match_id, bot_id in found.values_list("match_id", "version__bot_id"):
        seats.setdefault(match_id, []).append(bot_id)
    units: list[Placing[int]] = []
    for match_id, places, stored, _ in rows:
        if places and match_id in seats:
            units += match_rating.rated_units(seats[match_id], places, stored)
    return units
