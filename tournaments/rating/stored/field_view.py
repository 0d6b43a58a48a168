"""The stored field view: each game's whole field refitted now and then, as whole-history
rating systems do, and what the pages show from it.

A bot's stored deviation (``Rating.deviation``) takes its opponents as known; on the
2-seat ladder its 95% intervals cover only 0.75-0.83. The field's joint view
(``rating.model.field``) is honest, but a big site's field takes seconds to refit, so no request
can fit it. A periodic pass (the beat task ``tournaments.tasks.refit_fields``) does it
per game when rated matches came since the last pass, and stores each bot's rating in the
field and its joint deviation against the field's mean (``FieldRating``), with the time.
The field is refitted with the dispersion the game's recent units show, measured with
the whole field's covariance (``field_dispersion``): the stored per-bot dispersions are
too small on sparse multi-seat fields and noisy over a bot's few units.

This view is the one rating: the leaderboard, the bot page, the API and the ladder's
matchmaking all read ``standing`` (the field view where the bot has one: the same figure
everywhere until the next pass replaces it; a bot no pass has seen yet shows its stored
own rating, marked "own"). The stored state (``Rating``) is the rating's bookkeeping: it
moves with every result, feeds the next pass and draws the bot's history chart.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from tournaments.models import BotVersion, FieldPass, FieldRating, Rating, Seat
from tournaments.rating.model import field_deviations
from tournaments.rating.model.skill import interval, is_provisional
from tournaments.rating.stored import field_store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Standing:
    """The one rating of a bot, with its 95% interval: from the field view (``as_of`` its
    pass's time) or, for a bot no pass has seen yet, the stored rating (``as_of`` None:
    "own")."""

    elo: float
    deviation: float
    low: float
    high: float
    provisional: bool
    as_of: datetime | None

    @classmethod
    def of(cls, elo: float, deviation: float, units: int, as_of: datetime | None) -> Standing:
        low, high = interval(elo, deviation)
        return cls(elo, deviation, low, high, is_provisional(units, deviation), as_of)

    @property
    def joint(self) -> bool:
        """Whether the interval is the field's joint one."""
        return self.as_of is not None

    @property
    def own(self) -> bool:
        """Whether it is the bot's stored own rating (no field pass has seen the bot yet)."""
        return self.as_of is None


def standing(rating: Rating) -> Standing:
    """The one rating of ``rating``'s bot (load it with ``select_related("field")``: a
    rating without a field row costs no further query then)."""
    view: FieldRating | None = getattr(rating, "field", None)
    if view is None:
        return Standing.of(rating.elo, rating.deviation, rating.units, None)
    return Standing.of(view.elo, view.deviation, rating.units, view.fitted_at)


#: A version that has played fewer rated matches than this is "new": its page says why
#: its bot's interval widened (``new_version``).
NEW_VERSION_MATCHES = 30


@dataclass(frozen=True)
class NewVersion:
    """The version a bot's rating follows, when it is not the first and is still new."""

    number: int
    matches: int  # its rated matches so far (at most NEW_VERSION_MATCHES)


def new_version(bot_id: int) -> NewVersion | None:
    """The bot's latest rated version if it is not its first and has played fewer than
    NEW_VERSION_MATCHES rated matches: the rating widened at its first rated match (a
    new program may play better or worse), which a page says. Two indexed queries."""
    latest = (
        BotVersion.objects.filter(bot_id=bot_id, ever_rated=True)
        .order_by("-number")
        .values_list("id", "number")
        .first()
    )
    if latest is None or latest[1] <= 1:
        return None
    seats = Seat.objects.filter(version_id=latest[0], match__status="done", match__rated=True)
    played = seats.values("match_id")[:NEW_VERSION_MATCHES].count()
    return NewVersion(latest[1], played) if played < NEW_VERSION_MATCHES else None


def mark(game: str) -> tuple[int, int]:
    """What a pass of ``game`` would see: its rated bots and their rated matches summed.
    Every rated result adds to the sum in the transaction that stores it, so a result
    committed after a pass read this shows in the next pass's mark."""
    found = Rating.objects.filter(game=game).aggregate(bots=Count("id"), matches=Sum("matches"))
    return found["bots"], found["matches"] or 0


def refresh(game: str) -> str:
    """One field pass of ``game``, unless nothing was rated since the last one or another
    pass of it is under way; says which ("refitted", "unchanged", "running")."""
    seen = mark(game)
    last, _ = FieldPass.objects.get_or_create(game=game)
    if (last.bots, last.matches) == seen:
        return "unchanged"
    if not _claim(game):
        return "running"
    try:
        began = time.perf_counter()
        fitted, figures = _fit(game)
        _store(game, fitted, figures, seen, time.perf_counter() - began)
    finally:
        FieldPass.objects.filter(game=game).update(running_since=None)
    return "refitted"


def _claim(game: str) -> bool:
    """Take the game's pass (a conditional UPDATE: one winner); a claim older than a
    task's time limit is of a pass that died, and is taken over."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    free = Q(running_since__isnull=True) | Q(running_since__lt=stale)
    return FieldPass.objects.filter(free, game=game).update(running_since=now) == 1


def _fit(
    game: str,
) -> tuple[dict[int, tuple[float, float, float | None]], dict[str, float | None]]:
    """Each rated bot's rating in the whole field refitted, its joint deviation against
    the field's mean and the dispersion measured for it (None: too few units), by bot
    id; and the pass's figures a page fitting on the spot reads (``FieldPass``): the
    field's spread (``field_spread``), which the deviations count, the scales of its
    bias reduction and the penalty-fixed noise's share in its deviations."""
    found = field_store.game_field(game, recent=field_store.recent_units(game))
    deviations = field_deviations.against_mean(found)
    measured = found.dispersion or {}
    fitted = {bot: (found.elo[bot], deviations[bot], measured.get(bot)) for bot in found.elo}
    sandwich = found.sandwich if found.penalised is not None else None
    figures = (found.spread, *(found.scales or (None, None)), sandwich)
    return fitted, dict(zip(field_store.PASS_FIGURES, figures, strict=True))


def _store(
    game: str,
    fitted: dict[int, tuple[float, float, float | None]],
    figures: dict[str, float | None],
    seen: tuple[int, int],
    seconds: float,
) -> None:
    """Replace the game's field view by ``fitted`` in one transaction (pages read the old
    one until it commits) and record the pass."""
    now = timezone.now()
    ratings = dict(
        Rating.objects.filter(game=game, bot_id__in=list(fitted)).values_list("bot_id", "id")
    )
    rows = [
        FieldRating(
            rating_id=ratings[bot],
            elo=elo,
            deviation=deviation,
            dispersion=dispersion,
            fitted_at=now,
        )
        for bot, (elo, deviation, dispersion) in fitted.items()
        if bot in ratings
    ]
    with transaction.atomic():
        FieldRating.objects.filter(rating__game=game).delete()
        FieldRating.objects.bulk_create(rows, batch_size=1000)
        FieldPass.objects.filter(game=game).update(
            bots=seen[0], matches=seen[1], ran_at=now, seconds=seconds, **figures
        )
    log.info("field pass of %s: %s bots in %.1f s", game, len(rows), seconds)
