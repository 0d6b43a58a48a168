"""A production stack of this checkout (scripts/stack: docker-compose.yml with its proxy,
web, workers, beat, Redis and PostgreSQL in containers) under a project name and loopback
ports of its own, for tests/deploy/test_stack.py and bench/service/stack.py: started and
removed by scripts/stack itself, driven through its proxy (the API) and docker-compose."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import requests

ROOT = Path(__file__).resolve().parent.parent
#: What scripts/stack and docker-compose need from this process's environment; the rest
#: (the test settings: DATABASE_URL, DJANGO_*, JUDGE_*) must not reach the stack.
PASSED_THROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "DOCKER_HOST", "DEBIAN_MIRROR")
PORT_SETTINGS = (
    "WEB_PORT",
    "STACK_WEB_PORT",
    "STACK_POSTGRES_PORT",
    "STACK_REDIS_PORT",
    "FLOWER_PORT",
)


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports nobody listens on now (the kernel's choice, on loopback)."""
    with ExitStack() as held:
        probes = [held.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]


@dataclass
class Stack:
    """One stack: ``project`` names its containers and volumes, ``settings`` are its
    environment (ports, images, secret, and whatever the caller adds)."""

    project: str
    settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def make(cls, project: str, **settings: str) -> Stack:
        ports = dict(zip(PORT_SETTINGS, map(str, free_ports(len(PORT_SETTINGS))), strict=True))
        pipes = ROOT / "var" / f"{project}-pipes"
        defaults = {
            "COMPOSE_PROJECT_NAME": project,
            "DJANGO_SECRET_KEY": "stack-test-" + "k" * 50,
            "JUDGE_PIPE_ROOT": str(pipes),
            # The images scripts/stack builds from Debian's packages, named so that a .env
            # in the checkout cannot swap them for images that would have to be pulled.
            "POSTGRES_IMAGE": "cardjudge/postgres:bookworm",
            "REDIS_IMAGE": "cardjudge/redis:bookworm",
            "NGINX_IMAGE": "cardjudge/nginx:bookworm",
            "STACK_NETWORK": "loopback",
        }
        return cls(project, {**defaults, **ports, **settings})

    @property
    def environment(self) -> dict[str, str]:
        passed = {key: os.environ[key] for key in PASSED_THROUGH if key in os.environ}
        return {**passed, **self.settings}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.settings['WEB_PORT']}"

    def script(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        """scripts/stack ARGS, its output kept; raises with that output when it fails."""
        done = subprocess.run(
            [str(ROOT / "scripts" / "stack"), *args],
            cwd=ROOT,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise AssertionError(f"scripts/stack {' '.join(args)} failed:\n{done.stderr[-6000:]}")
        return done

    def up(self, workers: int) -> float:
        """Start it with ``workers`` worker containers; the seconds until it served."""
        started = time.monotonic()
        self.script("up", "--scale", f"worker={workers}")
        return time.monotonic() - started

    def down(self) -> None:
        """Remove its containers, network and volumes, and its folders in var/. Tried
        again once the engine answers if it failed (an engine restarted meanwhile)."""
        try:
            try:
                self.script("down", "--volumes", timeout=600)
            except AssertionError:
                wait_for(engine_answers, 300, "the Docker engine to answer again")
                self.script("down", "--volumes", timeout=600)
        finally:
            shutil.rmtree(self.settings["JUDGE_PIPE_ROOT"], ignore_errors=True)
            (ROOT / "var" / "stack" / f"{self.project}.yml").unlink(missing_ok=True)

    def compose(self, *args: str, timeout: float = 300) -> str:
        return self.script("compose", *args, timeout=timeout).stdout

    def containers(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service).split()

    def manage(self, *args: str, timeout: float = 300) -> str:
        """manage.py ARGS in the web container; its output."""
        return self.compose("exec", "-T", "web", "python", "manage.py", *args, timeout=timeout)

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """The rows of one query on the stack's database (its loopback port), read at once:
        a test polls with it where `manage.py shell` in a container takes seconds."""
        password = self.settings.get("POSTGRES_PASSWORD", "judge")
        port = self.settings["STACK_POSTGRES_PORT"]
        with psycopg.connect(
            f"postgresql://judge:{password}@127.0.0.1:{port}/judge", connect_timeout=10
        ) as connection:
            return connection.execute(query, params).fetchall()

    def api(self, method: str, path: str, token: str = "", expect: int = 200, **kwargs: Any) -> Any:
        """One API request through the proxy; its JSON, after checking the status."""
        headers = {"Authorization": f"Token {token}"} if token else {}
        answer = requests.request(
            method, self.base_url + path, headers=headers, timeout=60, **kwargs
        )
        assert answer.status_code == expect, f"{method} {path}: {answer.status_code} {answer.text}"
        return answer.json()


def engine_answers() -> bool:
    return subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Until ``condition()`` holds; fails after ``timeout`` seconds naming ``what``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.5)
