"""Ctrl-C on the main job while the workers play in Docker leaves nothing behind: no
process it started, no bot container of its deployment, no private run folder.

scripts/run runs the oceans11 demo in the Docker sandbox on a SQLite file of its own with a
JUDGE_INSTANCE of its own (its containers' label prefix); SIGINT comes once a match is
being played.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from sandbox import docker_backend
from tests.deploy.test_first_run import (
    ROOT,
    as_from_a_terminal,
    free_port,
    interrupt,
    processes_with,
    wait_for_text,
)


def running_matches(database: Path) -> int:
    try:
        with sqlite3.connect(database, timeout=30) as db:
            row = db.execute("select count(*) from tournaments_match where status = 'running'")
            return int(row.fetchone()[0])
    except sqlite3.OperationalError:  # not migrated yet
        return 0


def containers_of(instance: str) -> list[str]:
    listed = docker_backend.connect().api.containers(
        all=True, filters={"label": docker_backend.LABEL}
    )
    return [
        c["Id"]
        for c in listed
        if c["Labels"].get(docker_backend.MATCH_LABEL, "").startswith(f"{instance}-")
    ]


@pytest.mark.docker
def test_ctrl_c_stops_every_process_and_container_it_started(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    log = tmp_path / "run.log"
    marker = f"run-stops-{os.getpid()}"
    instance = f"runstops{os.getpid()}"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "CELERY_"))},
        "DATABASE_URL": f"sqlite:///{database}",
        "ADDR": f"127.0.0.1:{free_port()}",
        "JUDGE_SANDBOX": "docker",
        "JUDGE_INSTANCE": instance,
        "WORKER_CONCURRENCY": "2",
        "JUDGE_TEST_MARKER": marker,
    }
    with log.open("wb") as out:
        server = subprocess.Popen(
            [str(ROOT / "scripts" / "run"), "--game", "oceans11", "--fresh", "--no-progress"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=as_from_a_terminal,
        )
        try:
            wait_for_text(log, "playing the demo round robins", server, timeout=300)
            deadline = time.monotonic() + 240
            while running_matches(database) == 0 and time.monotonic() < deadline:
                assert server.poll() is None, log.read_text()
                time.sleep(0.2)
            assert running_matches(database) > 0, "no match was being played"
        finally:
            interrupt(server)
    output = log.read_text()
    assert "stopping the web UI, beat, the workers and Redis" in output
    assert processes_with(marker) == [], "scripts/run left processes running"
    assert containers_of(instance) == [], "scripts/run left bot containers"
    run = re.search(r"starting Redis on (\S+)/redis\.sock", output)
    assert run is not None, output
    assert not Path(run.group(1)).exists(), "the private run folder is still there"
