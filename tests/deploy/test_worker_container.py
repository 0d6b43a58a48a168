"""The worker as docker-compose.yml runs it: the app image, root, the engine's socket and
the pipe root mounted at the host's path, plays a tournament's matches in sibling bot
containers, through Redis, into PostgreSQL.

The container shares the host's network namespace (loopback only: it reaches the test
database and Redis on 127.0.0.1) instead of compose's network, since no registry image of
PostgreSQL or Redis can be pulled here; everything else is as compose sets it (the host's
user namespace too, on an engine that remaps users: docs/deploy.md).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection, transaction

from sandbox import docker_backend
from tests.deploy.test_image import IMAGE, image  # noqa: F401  (the fixture that builds it)
from tests.tournaments.conftest import REDIS_URL, sending_tasks_to, wait_for
from tournaments.competitions import competition_actions
from tournaments.management.commands import _seeds
from tournaments.models import Match, Tournament

pytestmark = pytest.mark.docker
#: This run's own Redis database (JUDGE_TEST_REDIS_URL): with a fixed one, two test runs on
#: one machine sent their matches to each other's worker containers.
BROKER = REDIS_URL
ROOT = Path(__file__).resolve().parents[2]
PIPE_ROOT = ROOT / "var" / "test-worker-pipes"
#: A host name of its own, as compose gives each container: the worker's leftover cleanup
#: then leaves alone the live bot containers of processes on this host (other tests).
HOSTNAME = f"cardjudge-test-worker-{os.getpid()}"


@pytest.fixture
def broker() -> Iterator[None]:
    """This process sends tasks to Redis (BROKER, emptied) instead of running them itself."""
    with sending_tasks_to(BROKER):
        yield


@pytest.fixture
def worker(image: str, transactional_db: None, broker: None) -> Iterator[str]:  # noqa: F811
    """A worker container, ready; removed (by its id) at the end. Yields its id."""
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@127.0.0.1:{db['PORT'] or 5432}/{db['NAME']}"
    pipes = str(PIPE_ROOT)
    started = subprocess.run(
        ["docker", "run", "-d", "--network", "host", "--hostname", HOSTNAME, "--user", "root",
         "--userns", "host", "-v", f"{engine_socket()}:/var/run/docker.sock",
         "-v", f"{pipes}:{pipes}",
         "-e", f"DATABASE_URL={url}", "-e", f"CELERY_BROKER_URL={BROKER}",
         "-e", "JUDGE_SANDBOX=docker", "-e", f"JUDGE_PIPE_ROOT={pipes}",
         "-e", "DJANGO_DEBUG=false", "-e", "DJANGO_SECRET_KEY=" + "k" * 50,
         IMAGE, "celery", "-A", "tournaments", "worker", "--concurrency=1",
         "--prefetch-multiplier=1", "--without-gossip", "--without-mingle", "-l", "INFO"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    try:
        wait_for(lambda: " ready." in logs(started), 60, "the worker container to start")
        yield started
    finally:
        subprocess.run(["docker", "rm", "-f", started], capture_output=True, check=False)


def engine_socket() -> str:
    """The socket of the engine these tests use (DOCKER_HOST, else the default one)."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    assert host.startswith("unix://"), f"DOCKER_HOST={host}: the worker needs a local socket"
    return host.removeprefix("unix://")


def logs(container: str) -> str:
    done = subprocess.run(["docker", "logs", container], capture_output=True, text=True)
    return done.stdout + done.stderr


def test_a_worker_container_plays_a_round_robin_in_sibling_bot_containers(worker: str) -> None:
    entrants = _seeds.current_versions("bigtwo")
    tournament = competition_actions.create_tournament(
        None, "compose worker", "bigtwo", entrants, table_size=2, games_per_pairing=1, seed=4
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)

    def finished() -> bool:
        tournament.refresh_from_db()
        return tournament.status == Tournament.Status.FINISHED

    # Generous: six matches of bots in containers on a machine that may be busy.
    wait_for(finished, 300, "the tournament to finish:\n" + logs(worker)[-3000:])
    matches = list(Match.objects.filter(tournament=tournament))
    assert len(matches) == 6
    assert {(m.status, m.attempt) for m in matches} == {(Match.Status.DONE, 1)}
    assert [m.faults for m in matches] == [[]] * 6
    assert all(m.timings["sandbox_start"] > 0 for m in matches)
    assert {m.worker.split(":")[0] for m in matches} == {f"celery@{HOSTNAME}"}
    assert re.search(r"removed \d+ leftover bot containers", logs(worker))
    labels = {c.labels.get(docker_backend.MATCH_LABEL, "") for c in docker_backend.bot_containers()}
    assert not {label for label in labels for m in matches if f"match-{m.pk}-bot" in label}
    assert {label for label in labels if label.endswith("-pool")}  # kept for later matches
    # Stopped as compose stops it (SIGTERM): its processes remove the containers they kept.
    subprocess.run(["docker", "stop", "-t", "60", worker], capture_output=True, check=True)
    assert kept_by_the_worker() == []
    assert list(PIPE_ROOT.glob("seat-*")) == []


def kept_by_the_worker() -> list[str]:
    """Bot containers made by a process of the worker container (its host name)."""
    return [
        c.labels.get(docker_backend.MATCH_LABEL, "")
        for c in docker_backend.bot_containers()
        if c.labels.get(docker_backend.OWNER_LABEL, "").startswith(f"{HOSTNAME}:")
    ]
