"""A worker's heartbeat outlives a restart of the database.

The heartbeat runs on a thread of the worker's main process, where no request or task
cycle replaces a dead connection: after PostgreSQL restarted, every beat failed ("could not
announce itself"), the worker's processes dropped out of the capacity for good and queued
matches waited for ever (tests/deploy/test_stack.py found it). The restart is played here by
ending the heartbeat's server process (pg_terminate_backend), which is what a restart does
to every open connection.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import wait_for
from tournaments.models import Worker
from tournaments.play.tasks import Heartbeat

pytestmark = pytest.mark.django_db(transaction=True)
NAME = "heartbeat-test@host"


def seen_at() -> dt.datetime | None:
    return Worker.objects.filter(name=NAME).values_list("seen_at", flat=True).first()


def test_the_heartbeat_announces_again_after_its_connection_dies(
    settings: SettingsWrapper,
) -> None:
    assert connection.vendor == "postgresql", "this test ends a PostgreSQL server process"
    settings.WORKER_HEARTBEAT_SECONDS = 1
    beat = Heartbeat(NAME, lambda: 2)
    beat.start()
    try:
        wait_for(lambda: seen_at() is not None, 120, "the first beat")
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            (ended,) = cursor.fetchone()
        assert ended >= 1, "the heartbeat's connection was not found"
        killed_at = timezone.now()
        wait_for(
            lambda: (seen_at() or killed_at) > killed_at, 120, "a beat after the connection died"
        )
    finally:
        beat.stop()
    assert Worker.objects.filter(name=NAME).count() == 0, "withdrawn when it stops"
