"""Issue 14, items 3 and 4, against a real gunicorn with three workers on PostgreSQL:
oversized bodies are refused before they are read (nothing reaches the disk), and the
registration limit holds across processes whatever X-Forwarded-For a client invents."""

from __future__ import annotations

import http.client
import json
import os
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.deploy.test_first_run import manage
from tests.tournaments.gunicorn_server import gunicorn

pytestmark = pytest.mark.django_db(transaction=True)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def raw_post(port: int, headers: str, body_bytes: int) -> bytes:
    """Send a POST's headers and the first 64 KiB of its body, read the answer's head,
    then try to send the rest up to ``body_bytes`` (the server may have hung up: that is
    the point). The answer is read first: a reset from the server could discard it."""
    chunk = b"x" * (64 << 10)
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode())
        if body_bytes:
            sock.sendall(chunk)
        answer = b""
        while b"\r\n\r\n" not in answer:
            part = sock.recv(65536)
            if not part:
                break
            answer += part
        try:
            for _ in range(body_bytes // len(chunk) - 1):
                sock.sendall(chunk)
        except OSError:
            pass  # refused and closed while we were still sending
        return answer


def test_a_gigabyte_post_is_refused_at_once_and_nothing_is_written(tmp_path: Path) -> None:
    with gunicorn(tmp_path) as port:
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
        assert folder_bytes(tmp_path / "tmp") == 0


def register(port: int, number: int, forwarded: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    body = json.dumps({"username": f"user{number}", "password": f"a long password {number}"})
    headers = {"Content-Type": "application/json", "X-Forwarded-For": forwarded}
    conn.request("POST", "/api/register/", body, headers)
    status = conn.getresponse().status
    conn.close()
    return status


def test_the_registration_limit_holds_across_workers_and_spoofed_addresses(
    tmp_path: Path,
) -> None:
    server = gunicorn(tmp_path, workers=3, API_REGISTRATION_RATE="10/day")
    with server as port, ThreadPoolExecutor(max_workers=30) as pool:
        answers = list(pool.map(lambda n: register(port, n, f"10.0.{n}.1"), range(30)))
    assert sorted(answers) == [201] * 10 + [429] * 20


@pytest.mark.parametrize("main_job", [False, True], ids=["wsgi", "main-job"])
def test_concurrent_registrations_on_sqlite_answer_201_or_400_never_500(
    tmp_path: Path, main_job: bool
) -> None:
    """Forty at once on the embedded default: twenty names, and twenty tries of one more
    name (one of which wins; the others are told the name is taken), through processes
    and through the main job's server, whose views run in threads."""
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "CELERY_SKIP_CHECKS": "1"}
    manage({**os.environ, **env}, "migrate", "--no-input")
    server = gunicorn(tmp_path, 3, main_job, API_REGISTRATION_RATE="1000/hour", **env)
    numbers = [*range(20), *[99] * 20]
    with server as port, ThreadPoolExecutor(max_workers=40) as pool:
        answers = list(pool.map(lambda n: register(port, n, "10.0.0.1"), numbers))
    assert sorted(answers) == [201] * 21 + [400] * 19
