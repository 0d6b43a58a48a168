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

Pages and the API then show ``standing``: the field view where the bot has one, its
stored rating otherwise (a bot rated after the last pass). The ladder's matchmaking keeps
reading the stored state, which moves with every result.
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

from tournaments.models import FieldPass, FieldRating, Rating
from tournaments.rating.model import field_deviations
from tournaments.rating.model.skill import interval, is_provisional
from tournaments.rating.stored import field_store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Standing:
    """The rating a page shows for a bot, with its 95% interval: from the field view
    (``as_of`` its pass's time) or, without one, the stored rating (``as_of`` None)."""

    elo: float
    deviation: float
    low: float
    high: float
    provisional: bool
    as_of: datetime | None

    @property
    def joint(self) -> bool:
        """Whether the interval is the field's joint one."""
        return self.as_of is not None


def standing(rating: Rating) -> Standing:
    """What the pages show for ``rating`` (load it with ``select_related("field")``: a
    rating without a field row costs no further query then)."""
    view: FieldRating | None = getattr(rating, "field", None)
    if view is None:
        elo, deviation, as_of = rating.elo, rating.deviation, None
    else:
        elo, deviation, as_of = view.elo, view.deviation, view.fitted_at
    low, high = interval(elo, deviation)
    provisional = is_provisional(rating.units, deviation)
    return Standing(elo, deviation, low, high, provisional, as_of)


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
        fitted = _fit(game)
        _store(game, fitted, seen, time.perf_counter() - began)
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


def _fit(game: str) -> dict[int, tuple[float, float, float | None]]:
    """Each rated bot's rating in the whole field refitted, its joint deviation against
    the field's mean and the dispersion measured for it (None: too few units), by bot id."""
    found = field_store.game_field(game, units=field_store.recent_units(game))
    deviations = field_deviations.against_mean(found)
    measured = found.dispersion or {}
    return {bot: (found.elo[bot], deviations[bot], measured.get(bot)) for bot in found.elo}


def _store(
    game: str,
    fitted: dict[int, tuple[float, float, float | None]],
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
            bots=seen[0], matches=seen[1], ran_at=now, seconds=seconds
        )
    log.info("field pass of %s: %s bots in %.1f s", game, len(rows), seconds)
