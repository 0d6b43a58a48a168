"""docker-compose.yml is valid and describes the deployment docs/deploy.md promises.

Validated by docker-compose itself (`config`, installed by scripts/bootstrap.d/40-compose),
then the resolved file is read: which services, what they mount, how they are checked.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.tournaments.test_env_example import listed_in_env_example

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker", "tables", "beat")


def compose_command() -> list[str]:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return ["docker", "compose"]


def compose_config(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "JUDGE_"))}
    return subprocess.run(
        [*compose_command(), "--project-directory", str(ROOT), "config"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    done = compose_config(DJANGO_SECRET_KEY="a-test-key")
    assert done.returncode == 0, done.stderr
    resolved: dict[str, Any] = yaml.safe_load(done.stdout)
    return resolved


def mounts(service: dict[str, Any]) -> set[tuple[str, str]]:
    """(source, target) of each volume, in the short (src:dst[:mode]) or the long form."""
    found = set()
    for volume in service.get("volumes", []):
        if isinstance(volume, str):
            source, target = volume.split(":")[:2]
        else:
            source, target = volume["source"], volume["target"]
        found.add((source, target))
    return found


def test_compose_refuses_to_start_without_a_secret_key() -> None:
    done = compose_config()
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY" in done.stderr


def test_it_runs_web_workers_beat_redis_and_postgres(config: dict[str, Any]) -> None:
    assert set(config["services"]) == {
        "migrate", "proxy", *APP_SERVICES, "redis", "postgres", "flower",
    }  # fmt: skip
    assert config["services"]["redis"]["image"].startswith("redis:")
    assert config["services"]["postgres"]["image"].startswith("postgres:")
    assert "gunicorn" in config["services"]["web"]["command"]
    assert config["services"]["worker"]["command"][:4] == ["celery", "-A", "tournaments", "worker"]
    assert "beat" in config["services"]["beat"]["command"]


def test_every_long_running_service_has_a_health_check(config: dict[str, Any]) -> None:
    for name in ("proxy", *APP_SERVICES, "redis", "postgres"):
        assert config["services"][name]["healthcheck"]["test"], name


def test_app_services_use_postgres_and_redis_in_production_mode(config: dict[str, Any]) -> None:
    for name in APP_SERVICES:
        env = config["services"][name]["environment"]
        assert (
            env["DATABASE_URL"].startswith("postgres://judge:")
            and "@postgres:5432/" in env["DATABASE_URL"]
        )
        assert env["CELERY_BROKER_URL"] == "redis://redis:6379/0"
        assert env["DJANGO_DEBUG"] == "false"
        assert env["JUDGE_SANDBOX"] == "docker"
        conditions = config["services"][name]["depends_on"]
        assert conditions["migrate"]["condition"] == "service_completed_successfully"


def test_the_worker_scales_and_reaches_the_engine_with_pipes_at_the_host_path(
    config: dict[str, Any],
) -> None:
    worker = config["services"]["worker"]
    assert "container_name" not in worker and "ports" not in worker  # --scale worker=N
    bound = mounts(worker)
    assert ("/var/run/docker.sock", "/var/run/docker.sock") in bound
    pipe_root = worker["environment"]["JUDGE_PIPE_ROOT"]
    assert (pipe_root, pipe_root) in bound
    # Root on the host, as the engine's socket needs, on an engine that remaps users.
    assert worker["userns_mode"] == config["services"]["tables"]["userns_mode"] == "host"


def test_tables_have_a_worker_of_their_own_that_the_match_workers_leave_alone(
    config: dict[str, Any],
) -> None:
    tables, worker = config["services"]["tables"]["command"], config["services"]["worker"]
    assert tables[:4] == ["celery", "-A", "tournaments", "worker"]
    assert tables[tables.index("-Q") + 1] == "tables" and "--pool=threads" in tables
    assert "--concurrency=8" in tables  # TABLE_SLOTS, a thread per table
    assert config["services"]["tables"]["environment"]["TABLE_SLOTS"] == "8"
    # The match workers name no queue: without -Q they take every queue but the tables'
    # (tournaments.config.celery.choose_queues).
    assert "-Q" not in worker["command"]


def test_data_lives_in_named_volumes(config: dict[str, Any]) -> None:
    assert {"pgdata", "redisdata", "media"} <= set(config["volumes"])
    assert ("pgdata", "/var/lib/postgresql/data") in mounts(config["services"]["postgres"])
    for name in ("web", "worker"):
        assert ("media", "/app/var/media") in mounts(config["services"][name])


def test_every_variable_compose_reads_is_listed_in_env_example() -> None:
    used = set(re.findall(r"\$\{([A-Z_]+)", (ROOT / "docker-compose.yml").read_text()))
    assert used - listed_in_env_example() == set()


def test_only_the_buffering_proxy_is_published_in_front_of_web(config: dict[str, Any]) -> None:
    proxy, web = config["services"]["proxy"], config["services"]["web"]
    assert proxy["image"].startswith("nginx:")
    assert ("./deploy/nginx.conf", "/etc/nginx/nginx.conf") in mounts(proxy) or any(
        target == "/etc/nginx/nginx.conf" and source.endswith("deploy/nginx.conf")
        for source, target in mounts(proxy)
    )
    assert [port["target"] for port in proxy["ports"]] == [8080]
    assert "ports" not in web
    assert "--config=python:tournaments.config.webserver" in web["command"]
    assert web["environment"]["DJANGO_TRUSTED_PROXIES"] == "1"


def test_the_monitor_is_optional_on_loopback_and_behind_a_password(config: dict[str, Any]) -> None:
    flower = config["services"]["flower"]
    assert flower["profiles"] == ["monitor"]  # only when asked for
    assert flower["command"][-1].startswith('case "$${FLOWER_BASIC_AUTH}" in ?*:?*) ;;')
    assert '--basic-auth="$${FLOWER_BASIC_AUTH}"' in flower["command"][-1]
    assert [str(port).split(":")[:2] for port in flower["ports"]] == [["127.0.0.1", "5555"]]
    assert ("media", "/app/var/media") not in mounts(flower)


def test_the_proxy_waits_for_the_web_servers_liveness_not_for_a_worker(
    config: dict[str, Any], live_server: Any
) -> None:
    assert config["services"]["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"
    probe = config["services"]["web"]["healthcheck"]["test"]
    assert probe[:3] == ["CMD", "python", "-c"] and "/health?live" in probe[3]
    # The probe itself, against a live server and a closed port: 0 when it answers 200.
    env = {**os.environ, "DJANGO_ALLOWED_HOSTS": "localhost,example.org"}
    served = probe[3].replace("127.0.0.1:8000", live_server.url.removeprefix("http://"))
    done = subprocess.run([sys.executable, "-c", served], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        closed = probe[3].replace("127.0.0.1:8000", f"127.0.0.1:{held.getsockname()[1]}")
        done = subprocess.run([sys.executable, "-c", closed], env=env, capture_output=True)
    assert done.returncode != 0
