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

import http.client
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml

from bench._stack import Stack, free_ports, wait_for
from tests.tournaments.sftp_server import sftp_server

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3
#: Production's defaults but for what this test waits on: no ladder (its matches would only
#: slow the tournaments down), and leases and the reaper in seconds, not minutes, so that
#: the killed worker's match is played again soon, and a match whose message Redis lost in
#: its restart (queued, sent, never started) is sent again after a minute, not 15.
SETTINGS = {
    "LADDER_ENABLED": "false",
    "MATCH_LEASE_SECONDS": "15",
    "REAPER_INTERVAL_SECONDS": "5",
    "MATCH_REQUEUE_AFTER_SECONDS": "60",
    "WEB_WORKERS": "2",
    "TABLE_SLOTS": "2",
    "FLOWER_BASIC_AUTH": "monitor:a-test-password-44",
    "CHECK_FURTHER_SHARE": "0.5",  # the author's check: fewer further matches (pyproject)
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


@pytest.mark.timeout(1800)  # the module's stack starts in its set-up (and the app image builds)
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
    # All five bots (the seeds, the house bots and the author's), three times: 30 matches,
    # so that some are still to play after the worker's kill and Redis's restart however
    # fast the workers play them against how slowly compose restarts (20 were all done
    # before PostgreSQL's turn once, on a loaded machine).
    by_node = {node_of(container): container for container in stack.containers("worker")}
    tournament = start_tournament(stack, author, "through faults", players=5, rounds=3)

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
    assert len(played) == 30 and {status for _, status, _, _ in played} == {"done"}
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


#: What differs between two answers of the same data: a form's CSRF token.
PER_REQUEST = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]*"|csrftoken=[^;]*')
RATINGS = (
    "SELECT bot_id, game, elo, deviation, units, variance, matches, wins, draws, losses "
    "FROM tournaments_rating ORDER BY bot_id, game"
)
HISTORY = (
    "SELECT bot_id, match_id, seq, before, after FROM tournaments_ratinghistory "
    "ORDER BY bot_id, match_id, seq"
)
REPLAYS = """
SELECT r.match_id, r.name FROM tournaments_replay r JOIN tournaments_match m ON m.id = r.match_id
WHERE m.tournament_id = %s ORDER BY r.match_id
"""


def site_pages(stack: Stack, tournament: int) -> list[str]:
    """The pages and API answers of one tournament: its matches, replays, frames, bots."""
    played = sorted(pk for pk, _, _, _ in matches(stack, tournament))
    bots = [bot for (bot,) in stack.sql(
        "SELECT DISTINCT s.bot_id FROM tournaments_seat s JOIN tournaments_match m "
        "ON m.id = s.match_id WHERE m.tournament_id = %s ORDER BY 1", tournament,
    )]  # fmt: skip
    paths = ["/", "/leaderboard/bigtwo/", "/tournaments/", f"/tournaments/{tournament}/"]
    # One tournament's matches: the whole list has a next page (its link names the port).
    paths += ["/api/leaderboards/bigtwo/", f"/api/matches/?tournament={tournament}"]
    paths += [f"/api/tournaments/{tournament}/"]
    paths += [f"/api/tournaments/{tournament}/standings/"]
    for match in played:
        paths += [f"/matches/{match}/", f"/api/matches/{match}/"]
        # The viewer's frames too: the web (the app's user) keeps them beside the replay
        # files the workers (root) wrote, which answered 500 until the workers' folders
        # went to the media volume's owner.
        paths += [f"/api/matches/{match}/replay/", f"/matches/{match}/frames/?seat=0"]
    return paths + [f"/bots/{bot}/" for bot in bots]


def fetch(port: int | str, paths: list[str]) -> dict[str, tuple[int, bytes]]:
    """Each path's status and body as sent (gzip accepted), bar a form's CSRF token."""
    found = {}
    for path in paths:
        conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        answer = conn.getresponse()
        found[path] = (answer.status, PER_REQUEST.sub(b"", answer.read()))
        conn.close()
    return found


def finished_tournament(stack: Stack, author: dict[str, Any]) -> int:
    """The first finished tournament on the stack (the tests above play some), or one of
    three played now (this test run alone)."""
    done = stack.sql("SELECT id FROM tournaments_tournament WHERE status = 'finished' ORDER BY id")
    if done:
        return int(done[0][0])
    tournament = start_tournament(stack, author, "to restore", players=3)
    wait_for(lambda: finished(stack, tournament), 600, "the tournament to finish")
    return tournament


@pytest.mark.timeout(1800)  # a second stack's start, or three containers', at any load
def test_a_backup_restored_into_a_fresh_stack_serves_the_same_site(
    stack: Stack, author: dict[str, Any], tmp_path: Path
) -> None:
    """scripts/stack backup (manage.py backup from the host, pg_dump in the stack's
    PostgreSQL container), then scripts/stack restore into a fresh stack (another project:
    new volumes, new ports) and scripts/stack up there: the same pages and ratings."""
    tournament = finished_tournament(stack, author)
    [(played, kept)] = stack.sql(
        "SELECT (SELECT count(*) FROM tournaments_match), (SELECT count(*) FROM tournaments_replay)"
    )
    assert played >= 3 and kept >= 3
    backup = tmp_path / "backup"
    done = stack.script("backup", str(backup))
    said = done.stdout + done.stderr
    assert f"saved {played} matches ({kept} replays)" in said, said
    assert sorted(p.name for p in backup.iterdir()) == [
        "database.dump",
        "manifest.json",
        "media.tar",
    ]
    paths = site_pages(stack, tournament)
    before = fetch(stack.settings["WEB_PORT"], paths)
    rated = stack.sql(RATINGS) + stack.sql(HISTORY)

    fresh = Stack.make(f"cardjudge-restored-{os.getpid()}", **SETTINGS)
    try:
        done = fresh.script("restore", str(backup))
        said = done.stdout + done.stderr
        assert f"restored {played} matches ({kept} replays)" in said, said
        fresh.up(1)
        after = fetch(fresh.settings["WEB_PORT"], paths)
        assert fresh.sql(RATINGS) + fresh.sql(HISTORY) == rated
        # Restoring over a stack that has its data is refused, naming what to do.
        with pytest.raises(AssertionError, match="restore into a fresh stack"):
            fresh.script("restore", str(backup))
    finally:
        fresh.down()
    assert {path: status for path, (status, _) in before.items() if status != 200} == {}
    different = {path: (before[path], after[path]) for path in paths if before[path] != after[path]}
    assert different == {}


@pytest.mark.timeout(1800)  # a second stack's start, or three containers', at any load
def test_two_worker_containers_sharing_only_the_database_redis_and_the_replay_store(
    stack: Stack, author: dict[str, Any], tmp_path: Path
) -> None:
    """Worker hosts (docs/deploy.md, "Workers on several machines"): two worker containers
    of the app image, each with a media volume of its own, and a web container with a
    third, reach the stack's PostgreSQL and Redis and an SFTP store (sshd on loopback),
    nothing else. The stack's own workers (which share its media volume) stop first: every
    match is played by the two, every replay lands on the store and in no media folder,
    and the web serves each byte-equal to the store's file. Last in this module: it leaves
    the stack's workers stopped."""
    rendered = yaml.safe_load((ROOT / "var" / "stack" / f"{stack.project}.yml").read_text())
    with sftp_server(tmp_path) as store, ExitStack() as hosts:
        stack.compose("stop", "worker")
        secrets = Path("/run/secrets/replay")
        env = store.env(secrets)
        [web_port] = free_ports(1)
        started = []
        for name in ("east", "west", "web"):
            service = rendered["services"]["web" if name == "web" else "worker"]
            container = f"{stack.project}-{name}"
            hosts.callback(remove_host, container)
            command = (
                ["gunicorn", "--config=python:tournaments.config.webserver",
                 f"--bind=127.0.0.1:{web_port}", "--workers=1"]
                if name == "web"
                else ["celery", "-A", "tournaments", "worker", "-n", f"{name}@%h",
                      "--concurrency=2", "--prefetch-multiplier=1", "--without-gossip",
                      "--without-mingle", "--loglevel=INFO"]
            )  # fmt: skip
            run_host(container, service, env, store.key.parent, secrets, command)
            started.append(container)
        for container in started[:2]:
            wait_for(lambda c=container: " ready." in logs(c), 300, f"{container} to be ready")
        wait_for(lambda: live(web_port), 120, "the web container to answer")

        tournament = start_tournament(stack, author, "on worker hosts", players=4)
        wait_for(lambda: finished(stack, tournament), 600, "the tournament on the worker hosts")
        played = matches(stack, tournament)
        assert len(played) == 6 and {status for _, status, _, _ in played} == {"done"}
        assert {worker.split("@")[0] for _, _, _, worker in played} == {"east", "west"}
        replays = dict(stack.sql(REPLAYS, tournament))
        assert len(replays) == 6
        stored = {
            p.relative_to(store.root).as_posix() for p in store.root.rglob("*") if p.is_file()
        }
        assert stored == set(replays.values())
        for match, name in replays.items():
            status, body = fetch(web_port, [f"/api/matches/{match}/replay/"]).popitem()[1]
            assert (status, body) == (200, (store.root / name).read_bytes()), match
            assert fetch(web_port, [f"/matches/{match}/frames/?seat=0"]).popitem()[1][0] == 200
        frames = {p.name for p in store.root.rglob("*") if ".frames" in p.name}
        assert len(frames) >= 6  # computed by the web once, kept on the store
        for container in started:  # no host kept a file of its own
            assert media_files(container) == [], container


def run_host(
    container: str, service: dict[str, Any], env: dict[str, str], secrets: Path,
    mounted_at: Path, command: list[str],
) -> None:  # fmt: skip
    """One host's container: the stack's service settings (its PostgreSQL and Redis on
    loopback), ``env`` on top, a media volume of its own and the store's key read-only;
    a worker also gets the engine's socket and the pipe root, as on any worker host."""
    environment = {**service["environment"], **env}
    args = ["docker", "run", "-d", "--name", container, "--network", "host", "--userns", "host"]
    args += ["-v", f"{container}-media:/app/var/media", "-v", f"{secrets}:{mounted_at}:ro"]
    if "celery" in command:
        pipes = environment["JUDGE_PIPE_ROOT"]
        args += ["--user", "root", "--pid", "host", "-v", f"{pipes}:{pipes}"]
        args += ["-v", "/var/run/docker.sock:/var/run/docker.sock"]
    for key, value in environment.items():
        args += ["-e", f"{key}={'' if value is None else value}"]
    subprocess.run([*args, service["image"], *command], check=True, capture_output=True)


def remove_host(container: str) -> None:
    """Stop (a worker's warm shutdown removes the bot containers it kept), then remove the
    container and its media volume."""
    subprocess.run(["docker", "stop", "-t", "120", container], capture_output=True, check=False)
    subprocess.run(["docker", "rm", "-f", container], capture_output=True, check=False)
    subprocess.run(
        ["docker", "volume", "rm", f"{container}-media"], capture_output=True, check=False
    )


def logs(container: str) -> str:
    done = subprocess.run(
        ["docker", "logs", container], capture_output=True, text=True, check=False
    )
    return done.stdout + done.stderr


def live(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/health?live", timeout=10).status_code == 200
    except requests.ConnectionError:
        return False


def media_files(container: str) -> list[str]:
    done = subprocess.run(
        ["docker", "exec", container, "find", "/app/var/media", "-type", "f"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.split()
