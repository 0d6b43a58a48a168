"""Issue 31, item 2: clients that send their bodies slowly cannot starve the main job's
web server (tournaments.config.webserver, the configuration scripts/run serves with), nor the
compose stack, whose nginx (deploy/nginx.conf, run here with Debian's nginx) sits in front.

Ten connections each declare a 100,000-byte body on the sign-in endpoint and send it one
byte every two seconds; meanwhile other requests must still be answered at once. Under
the former configuration (gunicorn's gthread worker, 2 processes x 4 threads) every one of
them waited 30 s: each slow body held a view thread while Django read it.
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.tournaments.gunicorn_server import ROOT, free_port, gunicorn, wait_until_serving
from tests.tournaments.test_abuse_server import raw_post

pytestmark = pytest.mark.django_db(transaction=True)
SLOW_HEAD = (
    "POST /api/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    "Content-Length: 100000\r\n\r\n{"
)


def answer_seconds(port: int) -> float:
    """How long one GET of the games list takes, start to last byte."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", "/api/games/")
    response = conn.getresponse()
    response.read()
    conn.close()
    assert response.status == 200
    return time.monotonic() - started


def drip(sockets: list[socket.socket], stop: threading.Event, sent: list[int]) -> None:
    """One byte to each slow connection every two seconds, until ``stop``."""
    while not stop.wait(2.0):
        for sock in sockets:
            try:
                sock.sendall(b" ")
            except OSError:
                continue
        sent.append(1)


def still_open(sock: socket.socket) -> bool:
    """Whether the server has neither answered nor closed this connection."""
    sock.setblocking(False)
    try:
        return not sock.recv(1, socket.MSG_PEEK) and False
    except BlockingIOError:
        return True
    finally:
        sock.setblocking(True)


@contextmanager
def nginx(folder: Path, upstream: int) -> Iterator[int]:
    """deploy/nginx.conf in front of the server on ``upstream``; yields the proxy's port."""
    port = free_port()
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    text = text.replace("server web:8000;", f"server 127.0.0.1:{upstream};")
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    text = text.replace("pid /tmp/nginx.pid;", f"pid {folder / 'nginx.pid'};")
    (folder / "nginx.conf").write_text(text)
    program = shutil.which("nginx") or "/usr/sbin/nginx"
    command = [program, "-c", str(folder / "nginx.conf"), "-p", str(folder), "-g", "daemon off;"]
    log = open(folder / "nginx.log", "wb")  # noqa: SIM115
    process = subprocess.Popen(command, stdout=log, stderr=log, start_new_session=True)
    try:
        wait_until_serving(port, process, folder / "nginx.log")
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()


@contextmanager
def served(folder: Path, through: str) -> Iterator[int]:
    """The main job's server, reached directly or through the compose stack's proxy."""
    with gunicorn(folder, workers=2, main_job=True) as port:
        if through == "server":
            yield port
            return
        with nginx(folder, port) as proxied:
            yield proxied


@pytest.mark.parametrize("through", ["server", "proxy"])
def test_ten_slow_bodies_leave_other_requests_answered_in_under_a_second(
    tmp_path: Path, through: str
) -> None:
    with served(tmp_path, through) as port:
        sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
        stop, sent = threading.Event(), []
        for sock in sockets:
            sock.sendall(SLOW_HEAD.encode())
        dripper = threading.Thread(target=drip, args=(sockets, stop, sent))
        dripper.start()
        try:
            while len(sent) < 2:  # every slow client has started its body and sent more
                time.sleep(0.1)
            seconds = [answer_seconds(port) for _ in range(10)]
            open_now = sum(1 for sock in sockets if still_open(sock))
        finally:
            stop.set()
            dripper.join()
            for sock in sockets:
                sock.close()
    assert open_now == 10  # the slow clients were there all along
    assert statistics.median(seconds) < 1.0, seconds
    assert max(seconds) < 5.0, seconds


def test_the_main_job_server_refuses_oversized_and_chunked_bodies_before_reading(
    tmp_path: Path,
) -> None:
    with gunicorn(tmp_path, workers=1, main_job=True) as port:
        giant = raw_post(
            port,
            "Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 1073741824\r\n",
            body_bytes=8 << 20,
        )
        chunked = raw_post(
            port, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n", 0
        )
    assert giant.startswith(b"HTTP/1.1 413"), giant[:200]
    assert chunked.startswith(b"HTTP/1.1 411"), chunked[:200]
    assert sum(path.stat().st_size for path in (tmp_path / "tmp").rglob("*")) == 0


def test_the_proxy_refuses_a_body_over_the_app_limit_itself(tmp_path: Path) -> None:
    with served(tmp_path, "proxy") as port:
        big = raw_post(port, "Content-Type: application/json\r\nContent-Length: 2000000\r\n", 0)
    assert big.startswith(b"HTTP/1.1 413"), big[:200]
    assert "2000000" not in (tmp_path / "gunicorn.log").read_text()  # the app never saw it
