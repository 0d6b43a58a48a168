"""Is the deployment able to play? The broker, the database and the Docker engine, each
ok or failing with the reason, for /health (tournaments.web.ops_views) and operators.

Each check has a short timeout, so that a load balancer's probe gets an answer while a
part hangs. The engine is asked from this process when it has one (DOCKER_HOST, or the
engine's socket here: scripts/run, a worker host); compose's web has none (only the
workers reach the engine), so there the engine's state is what the live workers last
said: a worker whose engine stops answering announces no language it can run
(tournaments.play.runner.runnable_languages, every minute).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from importlib import import_module
from pathlib import Path

import redis
from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connection

from tournaments.play import dispatch

#: Seconds each part may take to answer.
TIMEOUT_S = 2.0
#: Seconds the engine may take (the Docker SDK takes whole seconds).
ENGINE_TIMEOUT_S = 2
#: The engine's socket when DOCKER_HOST is not set.
DOCKER_SOCKET = Path("/var/run/docker.sock")


@dataclass(frozen=True)
class Part:
    """One part's state: ok, and what was seen (why it fails, or what answered)."""

    ok: bool
    reason: str


def broker() -> Part:
    """The Celery broker answers a PING (Redis, or a Unix socket of Redis)."""
    if current_app.conf.task_always_eager:
        return Part(True, "tasks run in the sending process (CELERY_TASK_ALWAYS_EAGER)")
    url = str(current_app.conf.broker_url or "")
    if not url.startswith(("redis", "unix")):
        return Part(False, f"no Redis broker configured ({url.split(':')[0]}): tasks go unplayed")
    if url.startswith("redis+socket://"):
        url = "unix://" + url.removeprefix("redis+socket://")
    try:
        redis.Redis.from_url(url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S).ping()
    except redis.RedisError as error:
        return Part(False, f"the broker does not answer: {error}")
    return Part(True, "the broker answers")


def database() -> Part:
    """The database answers a query."""
    try:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SET LOCAL statement_timeout = %s", [int(TIMEOUT_S * 1000)])
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        return Part(False, f"the database does not answer: {str(error).strip()}")
    return Part(True, f"{connection.vendor} answers")


def engine() -> Part:
    """The Docker engine answers, here or at the live workers (JUDGE_SANDBOX=local: none
    is used, and bots are not isolated: said, but not a failure)."""
    if settings.JUDGE_SANDBOX != "docker":
        return Part(True, "not used: bots run as local processes (JUDGE_SANDBOX=local)")
    if os.environ.get("DOCKER_HOST") or DOCKER_SOCKET.exists():
        try:
            client = import_module("sandbox.docker_backend").connect(ENGINE_TIMEOUT_S)
            client.close()
        except Exception as error:  # SandboxError, with the engine's own words
            return Part(False, str(error))
        return Part(True, "the engine answers")
    return engine_at_workers()


def engine_at_workers() -> Part:
    """The engine as the live workers see it (this process has none)."""
    said = list(dispatch.live_workers().values_list("name", "languages"))
    if not said:
        return Part(False, "no engine here, and no live worker to ask (start a worker)")
    able = [name for name, languages in said if languages]
    if not able:
        return Part(False, f"no live worker's engine runs bots ({len(said)} workers say none)")
    return Part(True, f"{len(able)} of {len(said)} live workers' engines run bots")


def report() -> dict[str, Part]:
    return {"broker": broker(), "database": database(), "engine": engine()}


def liveness() -> dict[str, Part]:
    """Whether this web process can serve pages: it answers, and its database does. No
    broker and no worker: a container orchestrator restarts or holds back a server that
    fails this (compose's web healthcheck, which the proxy waits on), and neither a broker
    outage nor a stack whose workers are still starting is cured by that."""
    return {"database": database()}


def as_json(parts: dict[str, Part], reasons: bool) -> dict[str, object]:
    """The answer's body: ``ok`` overall and per part; the reasons only when asked (they
    name hosts and ports)."""
    shown = {name: asdict(part) if reasons else {"ok": part.ok} for name, part in parts.items()}
    return {"ok": all(part.ok for part in parts.values()), **shown}
