"""The operators' counters that no database row keeps: bot faults by kind, how match
attempts ended, bot containers started. Workers add to them in Redis (one hash per
deployment) as events happen; the metrics endpoint (tournaments.play.metrics) reads the
totals at scrape time.

Why Redis and not prometheus-client's own counters: those live in one process's memory
(or, in its multiprocess mode, in files of one host's folder), while the events happen in
worker processes on any host and the scrape lands on any web process. Every one of them
reaches the deployment's Redis already (the broker's, by default). Counting is best
effort: a Redis that fails costs a few counts, never a match. A Redis that restarts
empty starts the counters again from zero, which Prometheus' ``rate`` reads as a reset.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

import redis
from django.conf import settings

from judge.protocol import FaultKind
from sandbox.tally import CONTAINER_STARTS
from tournaments.play.instance import judge_instance

log = logging.getLogger(__name__)

#: Seconds a counter's Redis call may take (a scrape or a match never waits longer).
REDIS_TIMEOUT_S = 2.0
#: How a match attempt ended: play_match's answers, spaces as underscores.
ATTEMPT_OUTCOMES = (
    "stored",
    "part_stored",
    "failed",
    "voided",
    "released",
    "stopped",
    "lost_the_lease",
    "not_claimed",
)
FAULT_KINDS = tuple(str(kind) for kind in FaultKind)

FAULTS = "faults"
ATTEMPTS = "attempts"
CONTAINER_STARTS_NAME = "container_starts"


class CountersUnavailable(RuntimeError):
    """No Redis is configured (a memory broker): nothing is counted."""


def counters_redis() -> redis.Redis:
    """The Redis the counters live in: the live tables' (JUDGE_TABLE_REDIS_URL, by default
    the broker's), with a short timeout."""
    url = str(settings.JUDGE_TABLE_REDIS_URL)
    if not url:
        raise CountersUnavailable("no Redis configured (CELERY_BROKER_URL is not Redis)")
    if url.startswith("redis+socket://"):  # kombu's spelling of a Unix socket
        url = "unix://" + url.removeprefix("redis+socket://")
    return redis.Redis.from_url(
        url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
    )


def counters_key() -> str:
    """One hash per deployment (two may share a Redis: JUDGE_INSTANCE tells them apart)."""
    return f"cardjudge:{judge_instance()}:counters"


def field(name: str, label: str = "") -> str:
    return f"{name}|{label}"


def add(counts: Mapping[str, int]) -> None:
    """Add ``counts`` (field -> n) to the deployment's totals, in one round trip."""
    wanted = {key: n for key, n in counts.items() if n}
    if not wanted:
        return
    try:
        pipe = counters_redis().pipeline(transaction=False)
        for key, n in wanted.items():
            pipe.hincrby(counters_key(), key, n)
        pipe.execute()
    except (CountersUnavailable, redis.RedisError) as error:
        log.debug("counters not recorded (%s): %s", error, wanted)


def attempt_ended(outcome: str, faults: Iterable[Mapping[str, Any]] = ()) -> None:
    """A match attempt ended with ``outcome`` (play_match's answer); ``faults`` are the
    bots' faults of a stored result. The containers this process started since it last
    counted are added at the same time."""
    outcome = outcome.replace(" ", "_")
    counts = {field(ATTEMPTS, outcome if outcome in ATTEMPT_OUTCOMES else "other"): 1}
    for fault in faults:
        kind = str(fault.get("kind", ""))
        key = field(FAULTS, kind if kind in FAULT_KINDS else "other")
        counts[key] = counts.get(key, 0) + 1
    counts[field(CONTAINER_STARTS_NAME)] = CONTAINER_STARTS.take()
    add(counts)


def containers_started() -> None:
    """Add the containers this process started since it last counted (after a check)."""
    add({field(CONTAINER_STARTS_NAME): CONTAINER_STARTS.take()})


def totals() -> dict[tuple[str, str], int]:
    """Every counter of this deployment: (name, label) -> total. Raises
    CountersUnavailable or redis.RedisError when Redis cannot be read."""
    raw = counters_redis().hgetall(counters_key())
    found: dict[tuple[str, str], int] = {}
    for key, value in raw.items():
        text = key.decode() if isinstance(key, bytes) else str(key)
        name, _, label = text.partition("|")
        found[(name, label)] = int(value)
    return found
