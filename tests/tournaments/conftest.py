"""Shared pieces of the service tests: bots as code, entrants, and real worker processes.

The database is the PostgreSQL server on this machine (pyproject sets DATABASE_URL for
pytest); workers are real ``celery -A tournaments worker`` processes on Redis db 15, or
on the database JUDGE_TEST_REDIS_URL names (so that two test runs on one machine do not
empty each other's queues).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from django.db import connection
from pytest_django.fixtures import Settings as SettingsWrapper

from tournaments.bots import bot_actions
from tournaments.config.celery import app as celery_app
from tournaments.models import Bot, BotVersion, bundle_code
from tournaments.play import dispatch

REDIS_URL = os.environ.get("JUDGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
ROOT = Path(__file__).resolve().parents[2]

#: A protocol bot that plays the first legal action after ``delay`` seconds per move.
FIRST_LEGAL = """\
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        time.sleep(%(delay)s)
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        break
"""

#: A bot that says it is ready and then crashes at its first move.
CRASHER = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    else:
        sys.exit("crashing on purpose at the first move")
"""


def uploaded(game: str, name: str, source: str) -> BotVersion:
    """An accepted version of a bot whose main.py is ``source``."""
    bot = Bot.objects.create(owner=None, game=game, name=name)
    code, digest = bundle_code({"main.py": source.encode()})
    return bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def first_legal(game: str, name: str, delay: float = 0.0) -> BotVersion:
    return uploaded(game, name, FIRST_LEGAL % {"delay": delay})


def announce_workers(processes: int, name: str = "announced@test") -> None:
    """The dispatcher sees live workers with ``processes`` in all, as if one had announced
    itself (tests that play the workers' part; real workers announce themselves)."""
    dispatch.announce(name, processes)


@pytest.fixture
def ten_processes(settings: SettingsWrapper) -> None:
    """Capacity for the dispatcher: ten worker processes announced (the tests' caps,
    TOURNAMENT_SLOTS and LADDER_SLOTS, then decide). No process beats for the announced
    worker, so its beats are an hour apart: with the default 5 s one announced at a test's
    start was dead after 15 s, and a test slowed by a loaded machine lost its capacity
    half-way (test_dispatch's backlog test failed so once)."""
    settings.WORKER_HEARTBEAT_SECONDS = 3600
    announce_workers(10)


@pytest.fixture
def local_sandbox(settings: SettingsWrapper) -> None:
    settings.JUDGE_SANDBOX = "local"


class Workers:
    """Starts Celery worker processes against the test database and stops them by PID."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env = env
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(
        self, name: str, *extra: str, processes: int = 1, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """A worker named ``name@<host name>``; ``env`` adds to the workers' environment
        (WORKER_HOST=... makes it announce another host)."""
        log = open(self.folder / f"worker-{name}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "tournaments",
                "worker",
                "--pool",
                "prefork",
                "--concurrency",
                str(processes),
                "--prefetch-multiplier",
                "1",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel",
                "INFO",
                "--hostname",
                f"{name}@%h",
                *extra,
            ],
            cwd=ROOT,
            env={**self.env, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killed as a whole
        )
        self.processes.append(process)
        return process

    def start_with_reaper(self, name: str, processes: int = 1) -> subprocess.Popen[bytes]:
        """A worker that also runs Celery beat, so the reaper runs every second."""
        schedule = str(self.folder / "beat-schedule")
        return self.start(name, "--beat", "--schedule", schedule, processes=processes)

    def kill(self, process: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
        if process.poll() is None:
            os.killpg(process.pid, sig)
        process.wait(timeout=30)

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=15)


@pytest.fixture
def redis_broker() -> Iterator[None]:
    """This process sends tasks to the test Redis database (emptied) instead of running them."""
    with sending_tasks_to(REDIS_URL):
        yield


@contextmanager
def sending_tasks_to(broker_url: str) -> Iterator[None]:
    """This process sends tasks to the Redis database ``broker_url`` (emptied before and
    after) instead of running them itself."""
    client = redis.Redis.from_url(broker_url)
    client.flushdb()
    saved = {key: celery_app.conf[key] for key in ("task_always_eager", "broker_url")}
    celery_app.conf.update(task_always_eager=False, broker_url=broker_url)
    forget_broker_connections()
    yield
    celery_app.conf.update(saved)
    forget_broker_connections()
    client.flushdb()


def forget_broker_connections() -> None:
    """Celery keeps its first broker connection pool; make the next send use the new URL."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def workers(transactional_db: None, redis_broker: None, tmp_path: Path) -> Iterator[Workers]:
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tournaments.config.settings",
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "JUDGE_SANDBOX": "local",
        "MATCH_LEASE_SECONDS": "2",
        "WORKER_HEARTBEAT_SECONDS": "1",
        "REAPER_INTERVAL_SECONDS": "1",
        "MATCH_REQUEUE_AFTER_SECONDS": "600",
        "CELERY_SKIP_CHECKS": "1",  # the system checks run in the test session already
    }
    pool = Workers(env, tmp_path)
    yield pool
    pool.stop_all()


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
