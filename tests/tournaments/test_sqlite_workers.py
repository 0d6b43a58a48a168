"""The embedded default database takes concurrent writers: three real Celery workers play a
tournament into one SQLite file (WAL mode, immediate transactions, a busy timeout) while
this test reads it, and no match fails with "database is locked".

Everything runs in subprocesses on the SQLite file; tasks go through the test Redis
database (JUDGE_TEST_REDIS_URL), emptied before and after.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.deploy.test_first_run import manage
from tests.tournaments.conftest import REDIS_URL, Workers, wait_for

CREATE = """
from django.db import transaction
from tournaments.competitions import competition_actions
from tournaments.management.commands import _seeds
entrants = _seeds.current_versions("fifteen35")
t = competition_actions.create_tournament(None, "cup", "fifteen35", entrants, table_size=3,
                               games_per_pairing=1, rounds=4, seed=5)
with transaction.atomic():
    competition_actions.start_tournament(t.pk)
t.refresh_from_db()
print(t.pk, t.matches_total)
"""


@pytest.fixture
def sqlite_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    yield {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "JUDGE_SANDBOX": "local",
        "JUDGE_HOUSE_BOTS": "inprocess",
        "CELERY_SKIP_CHECKS": "1",
    }
    client.flushdb()


def statuses(database: str) -> dict[str, int]:
    with sqlite3.connect(database, timeout=30) as db:
        rows = db.execute("select status, count(*) from tournaments_match group by status")
        return dict(rows.fetchall())


@pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")
def test_three_workers_write_one_sqlite_database_without_locking_errors(
    sqlite_env: dict[str, str], tmp_path: Path
) -> None:
    manage(sqlite_env, "migrate", "-v", "0")
    manage(sqlite_env, "load_seeds", "--game", "fifteen35")
    workers = Workers(sqlite_env, tmp_path)
    try:
        for name in ("w1", "w2", "w3"):
            workers.start(name)
        tournament, total = map(int, manage(sqlite_env, "shell", "-c", CREATE).split()[-2:])
        assert total >= 12
        database = str(tmp_path / "db.sqlite3")
        wait_for(lambda: statuses(database).get("done", 0) == total, 300, "every match played")
    finally:
        workers.stop_all()
    assert statuses(database) == {"done": total}
    with sqlite3.connect(database) as db:
        status, done = db.execute(
            "select status, matches_done from tournaments_tournament where id = ?", (tournament,)
        ).fetchone()
        assert (status, done) == ("finished", total)
        assert db.execute("pragma journal_mode").fetchone()[0] == "wal"
        players = db.execute("select count(distinct worker) from tournaments_match").fetchone()
    assert players[0] >= 2, "the matches were not shared between workers"
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("worker-*.log"))
    assert "database is locked" not in logs
