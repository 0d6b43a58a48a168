"""What the service benchmarks share: Django configured for a scratch PostgreSQL database,
and real Celery worker processes playing from Redis into it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
DATABASE = "postgres://postgres@127.0.0.1:5432/cardjudge"


def configure(bench: str, broker: str, sandbox: str) -> None:
    """The environment of this process and of the workers it starts, then Django.

    The scratch database is named for ``bench`` and this process, so runs never collide.
    """
    os.environ.setdefault("DATABASE_URL", DATABASE)
    if not os.environ["DATABASE_URL"].startswith(("postgres://", "postgresql://")):
        sys.exit(
            f"{bench} needs PostgreSQL (DATABASE_URL=postgres://...): a worker "
            "process must share the database"
        )
    os.environ["DATABASE_TEST_NAME"] = f"{bench}_{os.getpid()}"
    os.environ["CELERY_BROKER_URL"] = broker
    os.environ["JUDGE_SANDBOX"] = sandbox
    os.environ["JUDGE_HOUSE_BOTS"] = "sandbox"
    # Throughput benches keep every worker process busy (no process kept idle for checks).
    os.environ.setdefault("INTERACTIVE_RESERVE", "0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")
    warnings.filterwarnings("ignore", message="the local backend runs bots")
    django.setup()


@contextmanager
def scratch_database(keep: str = "") -> Iterator[str]:
    """A fresh, migrated database for this run (dropped at the end); its URL. With
    ``keep``, the database of that name instead: reused (migrated) if there, and kept."""
    from django.db import connection

    original = connection.settings_dict["NAME"]
    if keep:
        connection.settings_dict["TEST"]["NAME"] = keep
    name = connection.creation.create_test_db(
        verbosity=0, autoclobber=True, serialize=False, keepdb=bool(keep)
    )
    db = connection.settings_dict
    try:
        yield f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{name}"
    finally:
        if not keep:
            connection.creation.destroy_test_db(original, verbosity=0)


@contextmanager
def worker(
    name: str,
    database_url: str,
    folder: Path,
    env: dict[str, str] | None = None,
    processes: int = 1,
    kill: bool = False,
    extra: tuple[str, ...] = (),
    root: Path = ROOT,
) -> Iterator[subprocess.Popen[bytes]]:
    """A Celery worker (``processes`` processes, prefetch 1) logging to ``folder/name.log``,
        ready when this yields its main process, stopped by its PID afterwards (``kill``: at
        once, not after the work it holds). ``env`` adds to this process's; ``extra`` to its
        command line (a later ``--pool`` wins); ``root``: the checkout of the code it runs (another
    needs PYTHONPATH in ``env`` too)."""
    log = folder / f"{name}.log"
    command = [
        sys.executable, "-m", "celery", "-A", "tournaments", "worker", "--hostname",
        f"{name}@%h", "--pool", "prefork", "--concurrency", str(processes), "--prefetch-multiplier",
        "1", "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "INFO",
        *extra,
    ]  # fmt: skip
    environment = {**os.environ, "DATABASE_URL": database_url, **(env or {})}
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=root, env=environment, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while b" ready." not in log.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"worker {name} did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
