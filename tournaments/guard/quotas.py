"""Per-user quotas on what costs the judge work, counted in the database (QUOTA_* settings).

Fair scheduling (tournaments.play.dispatch) decides whose match runs next; quotas bound how
much one user may ask for in the first place: matches waiting for the workers, tournaments
running at once, quick matches and uploads (each upload is checked in the sandbox) per
hour. They hold across every web and API process because they count stored rows. A
refusal is a QuotaExceeded (a ServiceError: the web shows its message on the form; the
API answers 429 with Retry-After). Things with no owner (house bots, tournaments made by
management commands) have no quota.
"""

from __future__ import annotations

import datetime as dt
import math

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Min, Q, QuerySet
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.models import BotVersion, Match, Tournament

#: A tournament being scheduled or running counts against the running quota.
STARTED = (Tournament.Status.SCHEDULING, Tournament.Status.RUNNING)
#: Seconds a client is told to wait when the quota frees as its own matches finish.
RETRY_WHEN_PLAYED = 60
HOUR = dt.timedelta(hours=1)


class QuotaExceeded(ServiceError):
    """The user asked for more than their quota; ``retry_after`` says when to try again."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


def _user_id(user: AbstractBaseUser | AnonymousUser | None) -> int | None:
    if user is None or not user.is_authenticated:
        return None
    return int(user.pk)


def check_start(
    user: AbstractBaseUser | None, new_matches: int, starting: int | None = None
) -> None:
    """May ``user`` start a tournament of ``new_matches`` matches now? A tournament whose
    schedule is being written counts as running, with its matches not yet written as
    waiting (``starting``: the tournament asked about, left out of both)."""
    owner = _user_id(user)
    if owner is None:
        return
    others = ~Q(pk=starting) if starting is not None else Q()
    started = Tournament.objects.filter(others, owner_id=owner, status__in=STARTED)
    if started.count() >= settings.QUOTA_TOURNAMENTS_RUNNING:
        raise QuotaExceeded(
            f"you already have {settings.QUOTA_TOURNAMENTS_RUNNING} tournaments running, the "
            "most allowed at once; wait for one to finish (or cancel one)",
            RETRY_WHEN_PLAYED,
        )
    waiting = (
        Match.objects.filter(
            tournament__owner_id=owner, status__in=(Match.Status.QUEUED, Match.Status.RUNNING)
        )
        .exclude(tournament_id=starting or 0)
        .count()
    ) + _not_yet_written(started)
    limit = settings.QUOTA_MATCHES_QUEUED
    if waiting + new_matches > limit:
        raise QuotaExceeded(
            f"this tournament has {new_matches} matches and you already have {waiting} "
            f"waiting to be played; at most {limit} may wait at once: make it smaller "
            "(fewer entrants or rounds) or wait for your other matches",
            RETRY_WHEN_PLAYED,
        )


def _not_yet_written(started: QuerySet[Tournament]) -> int:
    """Matches of the tournaments being scheduled that are not written yet."""
    scheduling = started.filter(status=Tournament.Status.SCHEDULING)
    rows = scheduling.annotate(written=Count("matches")).values_list("matches_total", "written")
    return sum(max(0, total - written) for total, written in rows)


def check_quick_match(user: AbstractBaseUser | AnonymousUser | None) -> None:
    """May ``user`` ask for one more quick match in this hour?"""
    owner = _user_id(user)
    if owner is None:
        return
    recent = Match.objects.filter(requested_by_id=owner, tournament__isnull=True)
    _per_hour(recent, "created_at", settings.QUOTA_QUICK_MATCHES_PER_HOUR, "quick matches")


def check_upload(user: AbstractBaseUser | AnonymousUser | None) -> None:
    """May ``user`` upload one more new version (each is checked) in this hour? Versions
    the server could not check (a host fault, such as a missing runtime image: their
    report says ``host``) are not counted: the fault was the server's, not theirs."""
    owner = _user_id(user)
    if owner is None:
        return
    mine = BotVersion.objects.filter(bot__owner_id=owner)
    # By ids: a plain exclude on the JSON key would drop the rows without the key too.
    recent = mine.exclude(pk__in=mine.filter(check_report__host=True).values("pk"))
    _per_hour(recent, "created_at", settings.QUOTA_UPLOADS_PER_HOUR, "new bot versions")


def _per_hour(
    rows: QuerySet[BotVersion] | QuerySet[Match], field: str, limit: int, what: str
) -> None:
    since = timezone.now() - HOUR
    window = rows.filter(**{f"{field}__gte": since})
    if window.count() < limit:
        return
    oldest = window.aggregate(first=Min(field))["first"] or since
    wait = math.ceil((oldest + HOUR - timezone.now()).total_seconds())
    raise QuotaExceeded(
        f"you may make at most {limit} {what} an hour; try again in {_minutes(wait)}", wait
    )


def _minutes(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} s"
    return f"{math.ceil(seconds / 60)} min"
