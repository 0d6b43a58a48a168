"""Issue 31, item 4: every answer carries a Content-Security-Policy that lets only the
site's own scripts run (no inline script, no other host, no plug-ins, no framing); the
browser tests (tests/web/conftest.py) fail on anything it blocks on a page they open."""

from __future__ import annotations

import pytest
from django.test import Client

PAGES = [
    "/",
    "/leaderboard/oceans11/",
    "/tournaments/",
    "/docs/",
    "/rules/oceans11/",
    "/accounts/login/",
    "/admin/login/",
    "/api/",
    "/api/games/",
    "/no-such-page/",
    "/tournaments/?after=²",
]


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
def test_every_answer_has_a_policy_of_the_sites_own_scripts_only(path: str) -> None:
    answer = Client(raise_request_exception=False).get(path)
    policy = dict(
        part.strip().split(" ", 1) for part in answer["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'"
    assert policy["default-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in answer["Content-Security-Policy"]


@pytest.mark.django_db
def test_a_body_refused_before_reading_has_the_policy_too() -> None:
    """Issue 42: RequestSizeMiddleware's 413 (the WSGI server's) came back without it."""
    client = Client(raise_request_exception=False)
    answer = client.post("/api/token/", b"{}", "application/json", CONTENT_LENGTH="999999999")
    assert answer.status_code == 413
    assert "script-src 'self'" in answer["Content-Security-Policy"]
