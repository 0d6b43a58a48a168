"""A real gunicorn serving the test database, for what only several processes show
(shared rate limits) and what only a real server shows (bodies refused before reading)."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
#: This helper's ports (8000 + 100 * 3 ...): the first free one is used.
PORTS = range(8300, 8400)


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS}")


@contextmanager
def gunicorn(folder: Path, workers: int = 3, main_job: bool = False, **env: str) -> Iterator[int]:
    """A gunicorn with ``workers`` processes on the test database; yields its port.
    Its temporary files go to ``folder / "tmp"``. ``main_job``: with the configuration
    scripts/run and docker-compose serve with (tournaments.config.webserver), else WSGI threads."""
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    tmp = folder / "tmp"
    tmp.mkdir(exist_ok=True)
    port = free_port()
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tournaments.config.settings",
        "DATABASE_URL": url,
        "TMPDIR": str(tmp),
        "JUDGE_SANDBOX": "local",
        **env,
    }
    log = open(folder / "gunicorn.log", "wb")  # noqa: SIM115
    command = [sys.executable, "-m", "gunicorn", "--workers", str(workers)]
    if main_job:
        command += ["--config", "python:tournaments.config.webserver"]
    else:
        command += ["tournaments.config.wsgi:application", "--timeout", "120"]
    process = subprocess.Popen(
        [*command, "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_until_serving(port, process, folder / "gunicorn.log")
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        log.close()


def wait_until_serving(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"gunicorn stopped:\n{log.read_text()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/api/games/")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"gunicorn did not answer in 120 s:\n{log.read_text()}")
