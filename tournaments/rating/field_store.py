"""The field of one game as the database holds it, for pages that ask "is A better than B?".

``rating.field`` works on rating states with their records; this module loads them: every
rated bot of the game (``Rating``), its records (``RatingRecord``, keyed by opponent
version) and which version each bot's rating now follows (its latest version that has
been rated), so that a record of that version links the two bots' ratings and a record of
an earlier version stays a fixed opponent, read where it was last met. Three queries,
bounded by the game's rated bots and their records.
"""

from __future__ import annotations

from collections.abc import Collection

from tournaments.models import BotVersion, Rating, RatingRecord
from tournaments.rating import field


def game_field(
    game: str, whole: bool = True, bots: Collection[int] | None = None
) -> field.Field[int]:
    """The joint view (``field.field_of``) of every rated bot of ``game``, by bot id:
    refitted as a whole when ``whole``, else at the stored ratings.

    ``bots``: only these bots are fitted together; every other opponent stays where each
    record last met it. A page's cost is then bounded by the bots it shows, not by the
    game's field (the whole field of a big site takes seconds to refit)."""
    ratings = Rating.objects.filter(game=game)
    if bots is not None:
        ratings = ratings.filter(bot_id__in=list(bots))
    rows = {r.bot_id: r for r in ratings}
    records = RatingRecord.of(list(rows))
    skills = {pk: row.skill(records[pk]) for pk, row in rows.items()}
    return field.field_of(skills, current_versions(rows), whole=whole)


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
