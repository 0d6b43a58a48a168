"""Housekeeping: the sign-in log (django-axes' AccessLog, a row per sign-in), failure
counts past their lockout and expired database sessions are pruned on beat's schedule,
and nothing younger than its bound (docs/deploy.md, "What grows")."""

from __future__ import annotations

import datetime as dt

import pytest
from axes.models import AccessAttempt, AccessLog
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, wait_for
from tournaments.play import housekeeping

PASSWORD = "a long enough password 7"


def sign_in(name: str) -> Client:
    """A real sign-in through the web page (axes logs it, a session is stored)."""
    client = Client(REMOTE_ADDR="203.0.113.9")
    answer = client.post("/accounts/login/", {"username": name, "password": PASSWORD})
    assert answer.status_code == 302, answer.content[:300]
    return client


def fail_sign_in(name: str) -> None:
    answer = Client(REMOTE_ADDR="203.0.113.7").post(
        "/accounts/login/", {"username": name, "password": "wrong"}
    )
    assert answer.status_code == 200


def age_old_ones(days: float) -> None:
    """Make the sign-in rows, failure counts and sessions of the "old" people ``days``
    old (their sessions expired then)."""
    then = timezone.now() - dt.timedelta(days=days)
    AccessLog.objects.filter(username__startswith="old").update(attempt_time=then)
    AccessAttempt.objects.filter(username__startswith="old").update(attempt_time=then)
    recent = User.objects.get(username="recent").pk
    for session in Session.objects.all():
        if session.get_decoded().get("_auth_user_id") != str(recent):
            Session.objects.filter(pk=session.pk).update(expire_date=then)


def make_history(old: int) -> None:
    """``old`` people signed in (a failure each, a session each) 100 days ago, and one
    person now. (Axes forgets stale failures when a new one comes: the old ones are made
    old after every failure.)"""
    for name in [*(f"old{i}" for i in range(old)), "recent"]:
        User.objects.create_user(name, password=PASSWORD)
        sign_in(name)
        fail_sign_in(name)
    age_old_ones(days=100)


def test_old_sign_ins_stale_failures_and_expired_sessions_go_in_batches(
    db: None, settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.SIGNIN_LOG_DAYS = 90
    monkeypatch.setattr(housekeeping, "BATCH", 2)  # 5 old rows: three batches each
    make_history(old=5)
    assert AccessLog.objects.count() == 6 and Session.objects.count() == 6
    assert AccessAttempt.objects.count() == 6

    done = housekeeping.housekeeping()

    assert done == {"access_log": 5, "failures": 5, "sessions": 5}
    assert list(AccessLog.objects.values_list("username", flat=True)) == ["recent"]
    assert list(AccessAttempt.objects.values_list("username", flat=True)) == ["recent"]
    assert Session.objects.count() == 1
    assert housekeeping.housekeeping() == {"access_log": 0, "failures": 0, "sessions": 0}


def test_a_sign_in_younger_than_the_bound_stays(db: None, settings: SettingsWrapper) -> None:
    settings.SIGNIN_LOG_DAYS = 120  # the 100-day-old ones are inside it now
    make_history(old=2)
    done = housekeeping.housekeeping()
    assert done["access_log"] == 0 and AccessLog.objects.count() == 3
    assert done["sessions"] == 2  # sessions go by their own expiry


def test_beat_prunes_on_its_schedule(workers: Workers) -> None:
    make_history(old=3)
    workers.env["HOUSEKEEPING_SECONDS"] = "1"
    workers.start_with_reaper("keeper")
    wait_for(lambda: AccessLog.objects.count() == 1, 120, "beat's housekeeping")
    wait_for(lambda: Session.objects.count() == 1, 30, "the expired sessions to go")
    assert AccessLog.objects.get().username == "recent"
