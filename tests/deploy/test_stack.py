"""The production stack as a whole: `scripts/stack up --scale worker=3` (docker-compose.yml
with PostgreSQL, Redis and nginx built from Debian's packages, the app image for web, three
workers, tables and beat) serves the site through its proxy; an account registers, uploads
a bot and plays a tournament there through the API. Then, in a second tournament, a worker
container is killed with a match in hand and Redis and PostgreSQL are restarted while
matches are played: every match is done exactly once and the stored ratings equal a
recompute from the match history.

The stack has a project name and loopback ports of its own (bench/_stack.py), and
`scripts/stack down --volumes` removes its containers and volumes at the end.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from bench._stack import Stack, wait_for

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3
#: Production's defaults but for what this test waits on: no ladder (its matches would only
#: slow the tournaments down), and leases and the reaper in seconds, not minutes, so that
#: the killed worker's match is played again soon.
SETTINGS = {
    "LADDER_ENABLED": "false",
    "MATCH_LEASE_SECONDS": "15",
    "REAPER_INTERVAL_SECONDS": "5",
    "WEB_WORKERS": "2",
    "TABLE_SLOTS": "2",
    "FLOWER_BASIC_AUTH": "monitor:a-test-password-44",
}
#: Each match of a tournament: id, status, attempt, the worker (Celery node:process).
MATCHES = "SELECT id, status, attempt, worker FROM tournaments_match WHERE tournament_id = %s"
#: Per bot: its rating's count of rated matches, and the rated matches it really sat in.
COUNTS = """
SELECT r.bot_id, r.matches, (SELECT count(DISTINCT m.id) FROM tournaments_match m
    JOIN tournaments_seat s ON s.match_id = m.id
    WHERE s.bot_id = r.bot_id AND m.rated AND m.status = 'done')
FROM tournaments_rating r WHERE r.game = 'bigtwo'
"""


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    stack = Stack.make(f"cardjudge-test-{os.getpid()}", **SETTINGS)
    try:
        stack.up(WORKERS)
        stack.manage("load_seeds", "--game", "bigtwo")
        yield stack
    finally:
        stack.down()


@pytest.fixture(scope="module")
def author(stack: Stack) -> dict[str, Any]:
    """An account registered through the proxy, with a bot uploaded and accepted (the
    workers check it): its token and version id."""
    token = stack.api(
        "POST", "/api/register/", expect=201,
        json={"username": "stacktester", "password": "a long pass phrase 44"},
    )["token"]  # fmt: skip
    bot = stack.api("POST", "/api/bots/", token, 201, json={"game": "bigtwo", "name": "stackbot"})
    code = (ROOT / "seeds" / "bigtwo" / "shedder.py").read_bytes()
    version = stack.api(
        "POST", f"/api/bots/{bot['id']}/versions/", token, 201,
        files={"file": ("main.py", code)},
    )  # fmt: skip

    def checked() -> bool:
        status = stack.api("GET", f"/api/versions/{version['id']}/")["status"]
        assert status != "rejected", stack.api("GET", f"/api/versions/{version['id']}/", token)
        return status == "accepted"

    wait_for(checked, 300, "the uploaded bot's check by the workers")
    return {"token": token, "version": version["id"]}


def entrants(stack: Stack, author: dict[str, Any], count: int) -> list[int]:
    """The author's version and ``count - 1`` accepted seed and house versions."""
    listed = stack.api("GET", "/api/versions/?game=bigtwo&status=accepted&page_size=100")
    others = [v["id"] for v in listed.get("results", listed) if v["id"] != author["version"]]
    assert len(others) >= count - 1, listed
    return [author["version"], *others[: count - 1]]


def start_tournament(
    stack: Stack, author: dict[str, Any], name: str, players: int, rounds: int = 1
) -> int:
    """A round robin of ``players`` at tables of two, ``rounds`` times, started."""
    made = stack.api(
        "POST", "/api/tournaments/", author["token"], 201,
        json={"name": name, "game": "bigtwo", "participants": entrants(stack, author, players),
              "table_size": 2, "games_per_pairing": 1, "rounds": rounds},
    )  # fmt: skip
    stack.api("POST", f"/api/tournaments/{made['id']}/start/", author["token"], 202)
    return int(made["id"])


def finished(stack: Stack, tournament: int) -> bool:
    """Whether the site shows the tournament finished; False while it cannot answer (5xx:
    the database restarting), which the wait's time limit bounds."""
    answer = requests.get(f"{stack.base_url}/api/tournaments/{tournament}/", timeout=60)
    if answer.status_code >= 500:
        return False
    assert answer.status_code == 200, answer.text
    return bool(answer.json()["status"] == "finished")


def matches(stack: Stack, tournament: int) -> list[tuple[Any, ...]]:
    return stack.sql(MATCHES, tournament)


def test_the_stack_serves_a_tournament_through_its_proxy(
    stack: Stack, author: dict[str, Any]
) -> None:
    assert len(stack.containers("worker")) == WORKERS
    tournament = start_tournament(stack, author, "through the proxy", players=4)
    wait_for(lambda: finished(stack, tournament), 600, "the tournament to finish")
    shown = stack.api("GET", f"/api/tournaments/{tournament}/")
    assert shown["matches_done"] == shown["matches_total"] == 6
    rows = stack.api("GET", f"/api/tournaments/{tournament}/standings/")["rows"]
    assert author["version"] in {row["version"] for row in rows} and len(rows) == 4
    assert sorted(row["place"] for row in rows)[0] == 1 and sum(r["matches"] for r in rows) == 12
    played = matches(stack, tournament)
    assert {status for _, status, _, _ in played} == {"done"}
    assert all(worker.startswith("worker-") for _, _, _, worker in played)  # the containers'
    page = requests.get(f"{stack.base_url}/tournaments/{tournament}/", timeout=60)
    assert page.status_code == 200 and "stackbot" in page.text


def test_every_match_is_done_once_through_a_killed_worker_and_restarts(
    stack: Stack, author: dict[str, Any]
) -> None:
    # All five bots (the seeds, the house bots and the author's), twice: 20 matches.
    by_node = {node_of(container): container for container in stack.containers("worker")}
    tournament = start_tournament(stack, author, "through faults", players=5, rounds=2)

    seen: list[tuple[Any, ...]] = []

    def some_done_and_some_running() -> bool:
        seen[:] = matches(stack, tournament)
        statuses = [status for _, status, _, _ in seen]
        return "done" in statuses and "running" in statuses

    wait_for(some_done_and_some_running, 300, "a match done and another running")
    # Kill the worker container that holds a running match (its Celery node is named in
    # the match's worker field; each container keeps its node's name in /tmp/celery-node).
    victim = next(worker.split(":")[0] for _, status, _, worker in seen if status == "running")
    subprocess.run(["docker", "kill", by_node[victim]], check=True, capture_output=True)
    # What it still held once dead it cannot have finished: another worker must play it.
    held = {pk for pk, status, _, worker in matches(stack, tournament)
            if status == "running" and worker.startswith(f"{victim}:")}  # fmt: skip
    stack.compose("restart", "redis")
    done_before = sum(status == "done" for _, status, _, _ in matches(stack, tournament))
    wait_for(
        lambda: sum(s == "done" for _, s, _, _ in matches(stack, tournament)) > done_before,
        300, "a match played after Redis restarted",
    )  # fmt: skip
    unfinished = [pk for pk, status, _, _ in matches(stack, tournament) if status != "done"]
    assert unfinished, "the tournament ended before PostgreSQL restarted"
    stack.compose("restart", "postgres")
    wait_for(lambda: finished(stack, tournament), 900, "the tournament to finish after the faults")

    played = matches(stack, tournament)
    assert len(played) == 20 and {status for _, status, _, _ in played} == {"done"}
    for pk, _, attempt, worker in played:
        if pk in held:
            assert attempt >= 2 and not worker.startswith(f"{victim}:"), (pk, attempt, worker)
    # Exactly once: each bot's rating counts each rated match it sat in once.
    counts = stack.sql(COUNTS)
    assert counts and all(stored == real for _, stored, real in counts), counts
    # And the stored ratings are what the match history gives, recomputed from scratch
    # (the command fails when they differ).
    report = stack.manage("recompute_ratings")
    assert "; 0 differ; the records of 0 bots differ; the first-rated flags of 0" in report


def node_of(container: str) -> str:
    """The Celery node name of a worker container (written at its start)."""
    done = subprocess.run(
        ["docker", "exec", container, "cat", "/tmp/celery-node"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def test_the_optional_monitor_sees_the_workers_behind_its_password(stack: Stack) -> None:
    """Flower, compose's "monitor" profile: not started with the stack, then started on
    request, on loopback, answering only with its password, listing the running workers."""
    assert labelled(stack, "flower") == []  # not started by default
    stack.compose("--profile", "monitor", "up", "-d", "--no-deps", "flower")
    url = f"http://127.0.0.1:{stack.settings['FLOWER_PORT']}"
    user, password = SETTINGS["FLOWER_BASIC_AUTH"].split(":")
    running = labelled(stack, "worker")  # the one the test above killed may be gone
    assert len(running) >= WORKERS - 1
    nodes = {node_of(container) for container in running}
    listed: dict[str, Any] = {}

    def lists_the_workers() -> bool:
        try:
            answer = requests.get(f"{url}/api/workers?refresh=1", auth=(user, password), timeout=30)
        except requests.ConnectionError:
            return False  # not listening yet
        assert answer.status_code == 200, answer.text
        listed.update(answer.json())
        return nodes <= set(listed)

    wait_for(lists_the_workers, 180, "Flower to list the running workers")
    assert len(labelled(stack, "flower")) == 1
    assert all(listed[node].get("stats") for node in nodes), listed
    for auth in (None, (user, "a wrong password")):
        refused = requests.get(f"{url}/api/workers", auth=auth, timeout=30)
        assert refused.status_code == 401
        assert "worker-" not in refused.text


def labelled(stack: Stack, service: str) -> list[str]:
    """The running containers of one of the stack's services, by compose's labels (whatever
    profiles compose is asked with)."""
    done = subprocess.run(
        ["docker", "ps", "-q", "--filter", f"label=com.docker.compose.project={stack.project}",
         "--filter", f"label=com.docker.compose.service={service}"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.split()
