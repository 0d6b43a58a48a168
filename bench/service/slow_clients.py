"""Other requests' latency while ten clients send their bodies slowly (issue 31).

Serves a scratch SQLite database twice: with the main job's configuration
(tournaments.config.webserver: gunicorn's asyncio worker, Django's ASGI app) and, as the baseline
in the same run, the configuration scripts/run had before (WSGI, gthread, 2 processes x 4
threads, 30 s timeout). Against each: the median of GET /api/games/ alone, then with ten
connections each declaring ``Content-Length: 100000`` on POST /api/token/ and sending one
byte every 1.5 s; a request that gets no answer in 30 s counts as 30 s.

Run: ``python -m bench.service.slow_clients [--requests N]`` (about a minute and a half).
"""

from __future__ import annotations

import argparse
import http.client
import os
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

ROOT = Path(__file__).resolve().parents[2]
MAIN_JOB = ["--config", "python:tournaments.config.webserver", "--workers", "2"]
BEFORE = [
    "tournaments.config.wsgi:application",
    "--workers",
    "2",
    "--threads",
    "4",
    "--timeout",
    "30",
]
SLOW_HEAD = (
    b"POST /api/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100000\r\n\r\n{"
)
GIVE_UP = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def served(arguments: list[str], env: dict[str, str]) -> Iterator[int]:
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", *arguments, "--bind", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                seconds(port)
                break
            except OSError:
                time.sleep(0.2)
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def seconds(port: int) -> float:
    """One GET of the games list, start to last byte (GIVE_UP when it never answers)."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=GIVE_UP)
    try:
        conn.request("GET", "/api/games/")
        conn.getresponse().read()
    except TimeoutError:
        return GIVE_UP
    finally:
        conn.close()
    return time.monotonic() - started


def measure(port: int, requests: int) -> tuple[float, float]:
    """(median alone, median under ten slow clients), in seconds."""
    alone = statistics.median(seconds(port) for _ in range(requests))
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
    stop = threading.Event()
    for sock in slow:
        sock.sendall(SLOW_HEAD)

    def drip() -> None:
        while not stop.wait(1.5):
            for sock in slow:
                try:
                    sock.sendall(b" ")
                except OSError:
                    continue

    dripper = threading.Thread(target=drip)
    dripper.start()
    try:
        time.sleep(3)
        loaded = statistics.median(seconds(port) for _ in range(requests))
    finally:
        stop.set()
        dripper.join()
        for sock in slow:
            sock.close()
    return alone, loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tournaments.config.settings",
            "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
            "CELERY_SKIP_CHECKS": "1",
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "JUDGE_SANDBOX": "local",
        }
        manage = [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"]
        subprocess.run(manage, cwd=ROOT, env=env, check=True)
        results = {}
        for name, arguments in (("before (gthread)", BEFORE), ("main job (asgi)", MAIN_JOB)):
            with served(arguments, env) as port:
                results[name] = measure(port, args.requests)
    for name, (alone, loaded) in results.items():
        shown = f"alone {alone * 1000:8.1f} ms   under 10 slow clients {loaded * 1000:8.1f} ms"
        print(f"{name:18} {shown}")
    before, after = results["before (gthread)"][1], results["main job (asgi)"][1]
    print(f"under slow clients: the main job answers {before / after:.0f}x faster than before")


if __name__ == "__main__":
    main()
