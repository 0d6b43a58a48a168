"""Issue 42, item 5: the Content-Security-Policy is on every answer of the main job's
server, those made before any view too: the 413 and 411 its ASGI guard sends before a
body is read (tournaments.guard.requestlimits.BodySizeGuard) and the static files
WhiteNoise serves. Both went without it: the policy was added by the innermost middleware."""

from __future__ import annotations

import http.client
import os
from pathlib import Path

import pytest

from tests.deploy.test_first_run import manage
from tests.tournaments.gunicorn_server import gunicorn
from tests.tournaments.test_abuse_server import raw_post

pytestmark = pytest.mark.django_db(transaction=True)


def policy_of(head: bytes) -> str:
    """The Content-Security-Policy line of a raw answer's head ('' without one)."""
    for line in head.decode("latin-1").split("\r\n"):
        name, _, value = line.partition(":")
        if name.lower() == "content-security-policy":
            return value.strip()
    return ""


def get(port: int, path: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    answer = conn.getresponse()
    answer.read()
    conn.close()
    return answer


def test_refusals_before_reading_and_static_files_carry_the_policy(tmp_path: Path) -> None:
    static = tmp_path / "static"
    manage({**os.environ, "DJANGO_STATIC_ROOT": str(static)}, "collectstatic", "--no-input")
    with gunicorn(tmp_path, workers=1, main_job=True, DJANGO_STATIC_ROOT=str(static)) as port:
        giant = raw_post(
            port, "Content-Type: application/json\r\nContent-Length: 1073741824\r\n", 0
        )
        chunked = raw_post(
            port, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n", 0
        )
        style = get(port, "/static/web/site.css")
        page = get(port, "/tournaments/")
    assert giant.startswith(b"HTTP/1.1 413"), giant[:200]
    assert chunked.startswith(b"HTTP/1.1 411"), chunked[:200]
    assert style.status == 200 and style.getheader("Content-Type", "").startswith("text/css")
    expected = page.getheader("Content-Security-Policy")
    assert expected and "script-src 'self'" in expected
    assert policy_of(giant) == expected
    assert policy_of(chunked) == expected
    assert style.getheader("Content-Security-Policy") == expected
