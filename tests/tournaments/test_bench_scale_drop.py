"""bench_scale --drop: the kept databases go even when the configured one is absent.

The bench is configured for the database "cardjudge", which a machine that only ever ran
benches does not have; dropping the kept databases must not need it (it failed there:
"database cardjudge does not exist")."""

from __future__ import annotations

import os
import shutil

import pytest
from django.db import connection, connections

from bench.service.scale import KEPT_REPLAYS, drop_kept, kept_name

pytestmark = pytest.mark.django_db


def _exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        return cursor.fetchone() is not None


def test_drop_needs_no_configured_database() -> None:
    size = 900_000_000 + os.getpid()  # a kept name no bench uses
    name = kept_name(size)
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    (KEPT_REPLAYS / name / "000000").mkdir(parents=True)
    wrapper = type(connections["default"])
    absent = wrapper({**connection.settings_dict, "NAME": "absent_for_drop"}, "default")
    try:
        drop_kept([size, size + 1], absent)  # one kept, one never made
        assert not _exists(name)
        assert not (KEPT_REPLAYS / name).exists()
    finally:  # nothing left behind, whatever failed
        absent.close()
        with connection._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        shutil.rmtree(KEPT_REPLAYS / name, ignore_errors=True)
