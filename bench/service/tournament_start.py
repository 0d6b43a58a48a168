"""Starting big tournaments beside other writes (issue 42): how long a start takes to be
answered, and how long an unrelated write waits meanwhile, against a baseline of the same
writes with no start going on, measured in the same run.

For each database (SQLite, the main job's default, in WAL mode; and PostgreSQL) a scratch
site is made: three owners with 64 accepted bots each (Oceans 11, 2 seats: 2,336 matches
each, 8.7 s of CPU to work out) and a writer. The main job's web server (gunicorn's asyncio
worker, 2 processes) and one Celery worker process (the batch queue, where the schedules
are written; one tournament match at a time, house bots in-process) serve it. The writer
makes a bot every 0.1 s through the API (POST /api/bots/): first alone (the baseline),
then while the three owners start their tournaments at once, until all three are running.
A write or start that gets no answer within 60 s counts as 60 s; a write refused (a 500: on this
shared machine PostgreSQL at times refuses connections, "too many clients") is counted and
fails the goal.

Before issue 42 the start worked the schedule out in the request: 22-27 s holding SQLite's
write lock, other writes waited up to 18.7 s, and three or four starts at once gave 500s.
Goal: every start answered within 2 s and no write waiting more than 1 s.

Run: ``python -m bench.service.tournament_start [--database sqlite|postgres|both]``
(about two minutes a database). Its scratch databases are dropped; the broker's Redis
database (db 12 unless ``--broker URL``) is emptied: give it one nothing else uses.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: The Redis database the site's broker uses (emptied before and after): --broker.
BROKER = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/12")
POSTGRES = "postgres://postgres@127.0.0.1:5432/"
OWNERS = 3
ENTRANTS = 64
BASELINE_S = 8.0
WRITE_EVERY_S = 0.1
GIVE_UP_S = 60.0
GOALS = {"start": 2.0, "write": 1.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--one", choices=("sqlite", "postgres"), help=argparse.SUPPRESS)
    parser.add_argument("--broker", default=BROKER, help="a Redis database of its own (emptied)")
    args = parser.parse_args()
    os.environ["BENCH_BROKER_URL"] = args.broker
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    kinds = ("sqlite", "postgres") if args.database == "both" else (args.database,)
    results = []
    for kind in kinds:
        print(f"{kind}: making the site, serving it, measuring ...", flush=True)
        done = subprocess.run(
            [sys.executable, "-m", "bench.service.tournament_start", "--one", kind],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            if results:
                report(results)
            sys.exit(f"{kind} failed:\n{done.stderr[-8000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    report(results)


def report(results: list[dict[str, Any]]) -> None:
    load = os.getloadavg()[0]
    print(f"\n{OWNERS} starts at once of {ENTRANTS}-entrant 2-seat tournaments (load {load:.1f})")
    print("database  | starts answered (s)   | writes alone p50/p95/max (s) | writes during")
    print("          |                       |                              | p50/p95/max (s)")
    for r in results:
        starts = ", ".join(f"{s:.2f} ({c})" for s, c in zip(r["starts"], r["codes"], strict=True))
        print(
            f"{r['database']:9} | {starts:21} | {spread(r['baseline'])} | {spread(r['during'])}"
            f"  ({len(r['during'])} writes over {r['scheduling_s']:.0f} s of scheduling)"
        )
    for r in results:
        slowest_start, slowest_write = max(r["starts"]), max(r["during"])
        ratio = (
            statistics.quantiles(r["during"], n=20)[-1]
            / statistics.quantiles(r["baseline"], n=20)[-1]
        )
        met = slowest_start <= GOALS["start"] and slowest_write <= GOALS["write"]
        met = met and not r["failed"] and set(r["codes"]) == {202}
        print(
            f"{r['database']}: slowest start {slowest_start:.2f} s (goal {GOALS['start']}), "
            f"slowest write {slowest_write:.2f} s (goal {GOALS['write']}), p95 during/alone "
            f"{ratio:.1f}x, matches written {r['written']}, writes failed {r['failed'] or 0}: "
            f"{'met' if met else 'NOT met'}"
        )
        batches = r["batches"]
        over = [sum(s > GOALS["write"] for s in r[phase]) for phase in ("baseline", "during")]
        print(
            f"  {len(batches)} write transactions of the schedules: p50 "
            f"{statistics.median(batches):.3f} s, longest {max(batches):.3f} s; writes over "
            f"{GOALS['write']} s: {over[0]} of {len(r['baseline'])} alone, {over[1]} of "
            f"{len(r['during'])} during"
        )


def spread(seconds: list[float]) -> str:
    p50 = statistics.median(seconds)
    p95 = statistics.quantiles(seconds, n=20)[-1]
    return f"{p50:.3f} / {p95:.3f} / {max(seconds):.3f}".ljust(28)


def measure(kind: str) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-start-") as folder,
        database(kind, Path(folder)) as url,
    ):
        os.environ.update(site_environment(url))
        tokens = seed()
        with served(Path(folder)) as port, celery_worker(Path(folder)):
            baseline = writes_for(port, tokens["writer"], BASELINE_S)
            during = under_starts(port, tokens)
        batches = batch_seconds(Path(folder) / "worker.log")
        return {"database": kind, **during, "baseline": baseline, "batches": batches}


def batch_seconds(log: Path) -> list[float]:
    """How long each of the schedules' write transactions took (the worker logs each)."""
    found = re.findall(r"schedule written to \d+ in ([0-9.]+) s", log.read_text())
    return [float(seconds) for seconds in found]


def site_environment(url: str) -> dict[str, str]:
    return {
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "tournaments.config.settings",
        "CELERY_BROKER_URL": BROKER,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "JUDGE_SANDBOX": "local",
        "JUDGE_HOUSE_BOTS": "inprocess",
        "TOURNAMENT_SLOTS": "1",
        "QUOTA_MATCHES_QUEUED": "5000",
        "API_UPLOAD_RATE": "100000/hour",
        "DJANGO_SECURE_COOKIES": "false",
        "DJANGO_DEBUG": os.environ.get("BENCH_DEBUG", "false"),
    }


@contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    """A scratch database's URL, migrated; dropped afterwards."""
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    if kind == "sqlite":
        url = f"sqlite:///{folder / 'db.sqlite3'}"
    else:
        name = f"bench_start_{os.getpid()}"
        postgres("CREATE DATABASE " + name)
        url = POSTGRES + name
    try:
        migrate = [sys.executable, "manage.py", "migrate", "-v", "0"]
        env = {**os.environ, **site_environment(url)}
        subprocess.run(migrate, cwd=ROOT, env=env, check=True)
        yield url
    finally:
        redis.Redis.from_url(BROKER).flushdb()
        if kind == "postgres":
            postgres(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def postgres(statement: str) -> None:
    import psycopg

    with psycopg.connect(POSTGRES + "postgres", autocommit=True) as conn:
        conn.execute(statement)  # type: ignore[arg-type]


def seed() -> dict[str, Any]:
    """Three owners with 64 accepted bots each and a draft tournament of them; the writer.
    Their API tokens and the tournaments' ids."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.db import connections
    from rest_framework.authtoken.models import Token

    from tournaments.bots import bot_actions
    from tournaments.competitions import competition_actions
    from tournaments.models import Bot, BotVersion

    tokens: dict[str, Any] = {"owners": [], "tournaments": []}
    for o in range(OWNERS):
        owner = User.objects.create_user(f"owner{o}")
        versions = []
        for i in range(ENTRANTS):
            bot = Bot.objects.create(
                owner=owner, game="oceans11", name=f"o{o}b{i}", house_policy="random"
            )
            versions.append(
                bot_actions.add_version(bot, b"", f"{o}:{i}", BotVersion.Status.ACCEPTED)
            )
        tournament = competition_actions.create_tournament(
            owner, f"cup {o}", "oceans11", versions, table_size=2, games_per_pairing=1, seed=o
        )
        tokens["owners"].append(Token.objects.create(user=owner).key)
        tokens["tournaments"].append(tournament.pk)
    tokens["writer"] = Token.objects.create(user=User.objects.create_user("writer")).key
    connections.close_all()
    return tokens


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def process(command: list[str], log: Path, ready: str) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` in its own process group, logging to ``log``, once ``ready`` is in its
    log; stopped by its process group's id."""
    with log.open("wb") as out:
        started = subprocess.Popen(
            command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 120
        while ready not in log.read_text(errors="replace"):
            if started.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"{command[:4]} did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield started
    finally:
        if started.poll() is None:
            os.killpg(started.pid, signal.SIGTERM)
        try:
            started.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(started.pid, signal.SIGKILL)
            started.wait()


@contextmanager
def served(folder: Path) -> Iterator[int]:
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--config", "python:tournaments.config.webserver"]
    command += ["--bind", f"127.0.0.1:{port}"]
    with process(command, folder / "gunicorn.log", "Booting worker"):
        while request(port, "GET", "/api/games/")[1] != 200:
            time.sleep(0.2)
        yield port


@contextmanager
def celery_worker(folder: Path) -> Iterator[None]:
    command = [sys.executable, "-m", "celery", "-A", "tournaments", "worker", "-Q", "tournaments"]
    command += ["--concurrency", "1", "--prefetch-multiplier", "1", "--without-gossip"]
    command += ["--without-mingle", "--hostname", "bench@%h", "-l", "INFO"]
    with process(command, folder / "worker.log", " ready."):
        yield


def request(
    port: int, method: str, path: str, token: str = "", body: dict[str, Any] | None = None
) -> tuple[float, int]:
    """Seconds to the whole answer, and its status (0: none within GIVE_UP_S)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    started = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=GIVE_UP_S)
        conn.request(method, path, json.dumps(body) if body else None, headers)
        answer = conn.getresponse()
        answer.read()
        conn.close()
        return time.monotonic() - started, answer.status
    except OSError:
        return GIVE_UP_S, 0


class Writer(threading.Thread):
    """Makes a bot every WRITE_EVERY_S until stopped; the seconds each took."""

    def __init__(self, port: int, token: str, prefix: str) -> None:
        super().__init__(daemon=True)
        self.port, self.token, self.prefix = port, token, prefix
        self.seconds: list[float] = []
        self.failed: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            body = {"game": "bigtwo", "name": f"{self.prefix}{len(self.seconds)}"}
            took, status = request(self.port, "POST", "/api/bots/", self.token, body)
            self.seconds.append(took)
            if status != 201:
                self.failed.append(status)
            self.stop.wait(WRITE_EVERY_S)


def writes_for(port: int, token: str, seconds: float) -> list[float]:
    writer = Writer(port, token, "alone")
    writer.start()
    time.sleep(seconds)
    writer.stop.set()
    writer.join()
    return writer.seconds


def under_starts(port: int, tokens: dict[str, Any]) -> dict[str, Any]:
    """The three starts at once, with the writer going until all three run."""
    writer = Writer(port, tokens["writer"], "during")
    writer.start()
    time.sleep(1.0)
    answers: list[tuple[float, int]] = [(0.0, 0)] * OWNERS

    def start(i: int) -> None:
        path = f"/api/tournaments/{tokens['tournaments'][i]}/start/"
        answers[i] = request(port, "POST", path, tokens["owners"][i])

    began = time.monotonic()
    starters = [threading.Thread(target=start, args=(i,)) for i in range(OWNERS)]
    for starter in starters:
        starter.start()
    for starter in starters:
        starter.join()
    written = wait_running(port, tokens)
    scheduling = time.monotonic() - began
    writer.stop.set()
    writer.join()
    return {
        "failed": writer.failed,
        "starts": [took for took, _ in answers],
        "codes": [status for _, status in answers],
        "during": writer.seconds,
        "scheduling_s": scheduling,
        "written": written,
    }


def wait_running(port: int, tokens: dict[str, Any]) -> list[int]:
    """Polls the tournaments until none is scheduling (at most 10 minutes); their matches."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            states = [tournament(port, pk) for pk in tokens["tournaments"]]
        except ValueError as error:  # a database busy elsewhere: asked again
            print(error, file=sys.stderr)
            states = [{"status": "scheduling"}]
        if all(state["status"] != "scheduling" for state in states):
            return [state["matches_total"] for state in states]
        time.sleep(1.0)
    sys.exit("the schedules were not written within 10 minutes")


def tournament(port: int, pk: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=GIVE_UP_S)
    conn.request("GET", f"/api/tournaments/{pk}/")
    answer = conn.getresponse()
    body = answer.read()
    if answer.status != 200:
        text = body.decode(errors="replace")
        start = text.find('class="exception_value"')
        raise ValueError(f"tournament {pk}: {answer.status} {text[start : start + 600]}")
    found: dict[str, Any] = json.loads(body)
    conn.close()
    return found


if __name__ == "__main__":
    main()
