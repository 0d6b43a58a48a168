"""Locks that serialise a check with the write that follows it, across processes.

PostgreSQL: a transaction-level advisory lock, released at commit or rollback. SQLite needs
none: every transaction begins IMMEDIATE (tournaments.config.env), so writers already take
turns.
"""

from __future__ import annotations

from django.db import connection


def hold_for_transaction(key: int) -> None:
    """Take lock ``key`` until the caller's transaction ends (call inside ``atomic``)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
