"""Housekeeping (beat, every HOUSEKEEPING_SECONDS): the rows that grow with visits, not
with play, pruned to a bound an operator chose (docs/deploy.md, "What grows").

- django-axes' access log: a row for every web, admin and API sign-in, kept
  SIGNIN_LOG_DAYS days (axes itself never deletes them);
- axes' failure counts whose lockout window has passed (axes deletes them only when
  another failure comes);
- expired database sessions (Django deletes them only when ``clearsessions`` is run).

Deletes go in batches of BATCH rows, each its own short transaction, so a first run on
a site with years of sign-ins never holds a long lock on a table sign-ins write to.
"""

from __future__ import annotations

import datetime as dt
import logging
from importlib import import_module

from axes.models import AccessAttempt, AccessLog
from celery import shared_task
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db.models import Model, QuerySet
from django.utils import timezone

log = logging.getLogger(__name__)

#: Rows deleted per statement.
BATCH = 5_000
#: The session engines whose sessions are rows of django_session.
DATABASE_SESSIONS = (
    "django.contrib.sessions.backends.db",
    "django.contrib.sessions.backends.cached_db",
)


def delete_in_batches(rows: QuerySet[Model]) -> int:
    """Delete ``rows`` BATCH at a time (by primary key); how many were deleted."""
    deleted = 0
    while True:
        keys = list(rows.order_by().values_list("pk", flat=True)[:BATCH])
        if not keys:
            return deleted
        _, per_model = rows.model._default_manager.filter(pk__in=keys).delete()
        deleted += per_model.get(rows.model._meta.label, 0)


def prune_access_log(now: dt.datetime) -> int:
    """Sign-in rows older than SIGNIN_LOG_DAYS."""
    cutoff = now - dt.timedelta(days=settings.SIGNIN_LOG_DAYS)
    return delete_in_batches(AccessLog.objects.filter(attempt_time__lt=cutoff))


def prune_failures(now: dt.datetime) -> int:
    """Failure counts whose last failure is older than the lockout (LOGIN_LOCKOUT_MINUTES):
    they no longer lock anyone out."""
    cutoff = now - dt.timedelta(hours=float(settings.AXES_COOLOFF_TIME))
    return delete_in_batches(AccessAttempt.objects.filter(attempt_time__lt=cutoff))


def prune_sessions(now: dt.datetime) -> int:
    """Expired sessions of the database backends (what ``clearsessions`` does); another
    session engine (signed cookies, a cache) is asked to clear its own."""
    if settings.SESSION_ENGINE in DATABASE_SESSIONS:
        return delete_in_batches(Session.objects.filter(expire_date__lt=now))
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
    return 0


@shared_task(acks_late=True, name="tournaments.tasks.housekeeping")
def housekeeping() -> dict[str, int]:
    """Prune the sign-in log, stale failure counts and expired sessions; how many rows of
    each went."""
    now = timezone.now()
    done = {
        "access_log": prune_access_log(now),
        "failures": prune_failures(now),
        "sessions": prune_sessions(now),
    }
    log.info("housekeeping: deleted %s", done)
    return done
