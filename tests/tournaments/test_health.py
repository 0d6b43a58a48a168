"""/health with real outages caused safely: a broker URL, an engine (DOCKER_HOST) and a
database URL that point at a loopback port where nothing listens (a socket bound and
never listening: refused at once), never the machine's own Redis, Docker or PostgreSQL
stopped."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.tournaments.conftest import REDIS_URL, sending_tasks_to
from tests.tournaments.gunicorn_server import gunicorn
from tournaments.config.celery import app as celery_app
from tournaments.play import dispatch, health

TOKEN = "health-token-for-the-tests-01234"


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port bound by this test and never listened on: connections are refused."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


@pytest.fixture
def staff_client(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_user("ops", password="x" * 12, is_staff=True))
    return client


def read(client: Client) -> tuple[int, dict[str, object]]:
    answer = client.get("/health")
    return answer.status_code, json.loads(answer.content)


@pytest.mark.docker
def test_all_parts_answer(staff_client: Client) -> None:
    with sending_tasks_to(REDIS_URL):
        status, body = read(staff_client)
    assert status == 200, body
    assert body["ok"] is True
    assert body["broker"] == {"ok": True, "reason": "the broker answers"}
    assert body["database"] == {"ok": True, "reason": "postgresql answers"}
    assert body["engine"] == {"ok": True, "reason": "the engine answers"}


@pytest.mark.docker
def test_a_broker_that_does_not_answer_fails_the_health(
    staff_client: Client, closed_port: int
) -> None:
    with sending_tasks_to(REDIS_URL):
        celery_app.conf.broker_url = f"redis://127.0.0.1:{closed_port}/0"
        status, body = read(staff_client)
        seen = read(Client())  # a visitor sees which part fails, not the hosts and ports
    assert status == 503
    assert body["ok"] is False
    broker = body["broker"]
    assert isinstance(broker, dict) and broker["ok"] is False
    assert "the broker does not answer" in broker["reason"]
    assert str(closed_port) in broker["reason"]
    assert body["database"] == {"ok": True, "reason": "postgresql answers"}
    assert seen[0] == 503 and seen[1]["broker"] == {"ok": False}


def test_an_engine_that_does_not_answer_fails_the_health(
    staff_client: Client, closed_port: int, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.JUDGE_SANDBOX = "docker"  # type: ignore[attr-defined]
    monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{closed_port}")
    status, body = read(staff_client)
    assert status == 503
    engine = body["engine"]
    assert isinstance(engine, dict) and engine["ok"] is False
    assert "the Docker engine is not answering" in engine["reason"]
    # The broker (tasks in-process here) and the database still answer.
    assert body["database"] == {"ok": True, "reason": "postgresql answers"}
    assert body["broker"]["ok"] is True  # type: ignore[index]


def test_without_an_engine_here_the_live_workers_tell(
    staff_client: Client, settings: object, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings.JUDGE_SANDBOX = "docker"  # type: ignore[attr-defined]
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(health, "DOCKER_SOCKET", tmp_path / "no-engine-here.sock")
    status, body = read(staff_client)
    assert (status, body["engine"]) == (
        503,
        {"ok": False, "reason": "no engine here, and no live worker to ask (start a worker)"},
    )
    # Liveness asks only this process and its database: no worker needed.
    live = staff_client.get("/health?live")
    assert (live.status_code, json.loads(live.content)) == (
        200,
        {"ok": True, "database": {"ok": True, "reason": "postgresql answers"}},
    )
    dispatch.announce("blind@host", 2, [])  # its engine answers no image: it runs nothing
    status, body = read(staff_client)
    assert status == 503 and "1 workers say none" in body["engine"]["reason"]  # type: ignore[index]
    dispatch.announce("able@host", 2, ["python"])
    status, body = read(staff_client)
    assert (status, body["engine"]) == (
        200,
        {"ok": True, "reason": "1 of 2 live workers' engines run bots"},
    )


def test_a_real_server_whose_database_and_broker_are_gone_says_so(
    tmp_path: Path, closed_port: int, db: None
) -> None:
    down = f"127.0.0.1:{closed_port}"
    env = {
        "DATABASE_URL": f"postgres://postgres@{down}/nowhere",
        "CELERY_BROKER_URL": f"redis://{down}/0",
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "JUDGE_SANDBOX": "local",
        "METRICS_TOKEN": TOKEN,
    }
    with gunicorn(tmp_path, workers=1, **env) as port:
        for headers, reasons in (({}, False), ({"Authorization": f"Bearer {TOKEN}"}, True)):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", "/health", headers=headers)
            answer = conn.getresponse()
            body = json.loads(answer.read())
            assert answer.status == 503
            assert body["ok"] is False
            assert body["database"]["ok"] is False and body["broker"]["ok"] is False
            assert body["engine"]["ok"] is True  # local processes: no engine to ask
            if reasons:
                assert "the database does not answer" in body["database"]["reason"]
                assert str(closed_port) in body["broker"]["reason"]
            else:
                assert body["database"] == {"ok": False}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/health?live")
        answer = conn.getresponse()
        assert (answer.status, json.loads(answer.read())) == (
            503,
            {"ok": False, "database": {"ok": False}},
        )
