"""The README's first command, end to end on SQLite: seeds, a demo played by its own Celery
workers on its own Redis, standings, a web UI served by gunicorn; Ctrl-C stops it all; and
run_tournament on SQLite.

scripts/run is run for one game (``--game bigtwo``, passed on to the demo) with a bot
image that does not exist, so it must warn and fall back to local processes; it serves
the web UI on a free loopback port; run again, it must reuse what the first run made.
Every process it starts carries a marker in its environment: after Ctrl-C (SIGINT) none
may be left.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def first_run(database: Path, log: Path) -> str:
    """Run scripts/run until the web UI answers and the demo is over; fetch two pages;
    stop it with Ctrl-C (SIGINT); check nothing it started is left; its output."""
    port = free_port()
    marker = f"first-run-{os.getpid()}-{port}"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "CELERY_"))},
        "DATABASE_URL": f"sqlite:///{database}",
        "ADDR": f"127.0.0.1:{port}",
        "JUDGE_BOT_IMAGE": "cardjudge/no-such-image:missing",
        "JUDGE_HOUSE_BOTS": "inprocess",
        "WORKER_CONCURRENCY": "2",
        "JUDGE_TEST_MARKER": marker,
    }
    with log.open("wb") as out:
        server = subprocess.Popen(
            [str(ROOT / "scripts" / "run"), "--game", "bigtwo", "--no-progress"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=as_from_a_terminal,
        )
        try:
            wait_for_text(log, "Ctrl-C stops everything", server, timeout=300)
            home = fetch(f"http://127.0.0.1:{port}/", server, timeout=60)
            tournaments = fetch(f"http://127.0.0.1:{port}/tournaments/", server, timeout=60)
        finally:
            interrupt(server)
    assert "<html" in home.lower() and "Demo: bigtwo" in tournaments
    assert processes_with(marker) == [], "scripts/run left processes running"
    return log.read_text()


def as_from_a_terminal() -> None:
    """SIGINT as a terminal's shell leaves it: a test run started in the background (as CI
    may be) inherits SIGINT ignored, and bash cannot trap a signal ignored on entry."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt(server: subprocess.Popen[bytes]) -> None:
    """Ctrl-C: SIGINT to scripts/run, then wait (generously) for it to stop everything."""
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=120)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=30)
        pytest.fail("scripts/run did not stop within 120 s of SIGINT")


def processes_with(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (all that scripts/run started), after
    giving the last of them a few seconds to exit."""
    found: list[int] = []
    for _ in range(50):
        found = []
        for environ in Path("/proc").glob("[0-9]*/environ"):
            try:
                if marker.encode() in environ.read_bytes():
                    found.append(int(environ.parent.name))
            except OSError:  # gone meanwhile, or not ours to read
                continue
        if not found:
            return []
        time.sleep(0.2)
    return found


def wait_for_text(log: Path, text: str, server: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if server.poll() is not None:
            pytest.fail(f"scripts/run exited with status {server.returncode}:\n{log.read_text()}")
        time.sleep(0.3)
    pytest.fail(f"scripts/run did not print {text!r} within {timeout} s:\n{log.read_text()}")


def fetch(url: str, server: subprocess.Popen[bytes], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"scripts/run exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as page:
                body: bytes = page.read()
                return body.decode()
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"{url} did not answer within {timeout} s")


def test_the_first_command_plays_the_demo_and_serves_it_and_runs_twice(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    output = first_run(database, tmp_path / "first.log")
    assert "WARNING: no Docker engine answering (or no image cardjudge/no-such-image" in output
    assert "starting Redis on " in output and "Celery worker processes and beat" in output
    assert "stopping the web UI, beat, the workers and Redis" in output
    assert "Demo: bigtwo (#1, bigtwo): finished, 4 of 4 matches played" in output
    assert "shedder v1" in output and "house:greedy v1" in output
    assert "serving the web UI at http://127.0.0.1:" in output

    again = first_run(database, tmp_path / "second.log")
    assert "0 new versions stored" in again
    assert "bigtwo: reusing finished tournament #1" in again
    with sqlite3.connect(database) as db:
        counts = db.execute(
            "select count(*), (select count(*) from tournaments_match where tournament_id "
            "is not null) from tournaments_tournament"
        ).fetchone()
        ladders = db.execute("select count(*) from tournaments_ladder").fetchone()
    assert counts == (1, 4), "the ladder's matches are its own, never the demo's"
    assert ladders[0] >= 1, "the ladder (on in scripts/run) looked at the games"


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_run_tournament_plays_a_draft_to_the_end_on_sqlite(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "JUDGE_SANDBOX": "local",
        "JUDGE_HOUSE_BOTS": "inprocess",
    }
    manage(env, "migrate", "-v", "0")
    manage(env, "load_seeds", "--game", "fifteen35")
    draft = (
        "from tournaments.competitions import competition_actions\n"
        "from tournaments.management.commands import _seeds\n"
        "entrants = _seeds.current_versions('fifteen35')\n"
        "t = competition_actions.create_tournament(None, 'cup', 'fifteen35', entrants,"
        " table_size=3, games_per_pairing=1)\n"
        "print(t.pk, t.status)\n"
    )
    assert manage(env, "shell", "-c", draft).splitlines()[-1] == "1 draft"
    output = manage(env, "run_tournament", "1", "--no-progress")
    assert "cup (#1, fifteen35): finished, 4 of 4 matches played" in output
    assert len([line for line in output.splitlines() if " v1 " in line]) == 4
