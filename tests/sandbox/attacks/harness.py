"""What the Docker sandbox tests share: the backends, bot folders, reports, leftovers.

The hostile bots next to this module run their attack at once and write what they
managed as one ``REPORT {json}`` line on standard error; the tests read it from the
channel's capped stderr and assert that the sandbox refused.
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import docker

from sandbox.channel import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.docker_backend import LABEL, MATCH_LABEL, DockerBackend, connect

ATTACKS = Path(__file__).resolve().parent
#: Seat folders of the tests' pipe backend.
PIPE_ROOT = Path(tempfile.gettempdir()) / "cardjudge-test-pipes"
#: Every container these tests make carries a match label starting so.
RUN_PREFIX = f"test-{uuid.uuid4().hex[:8]}"


@functools.cache
def client() -> docker.DockerClient:
    return connect()


@functools.cache
def pipe_backend() -> DockerBackend:
    """The production set-up: named pipes in per-seat folders."""
    return DockerBackend(pipe_root=PIPE_ROOT, client=client())


@functools.cache
def attach_backend() -> DockerBackend:
    """The fallback: the engine's attach stream."""
    return DockerBackend(pipe_root=None, client=client(), clean=False)


def label(name: str) -> str:
    return f"{RUN_PREFIX}-{name}-{uuid.uuid4().hex[:6]}"


def bot_folder(parent: Path, attack: str, extra: dict[str, str] | None = None) -> Path:
    """A bot folder whose main.py is the attack ``attack`` (a file name without .py)."""
    folder = parent / attack
    folder.mkdir()
    shutil.copyfile(ATTACKS / f"{attack}.py", folder / "main.py")
    for name, text in (extra or {}).items():
        (folder / name).write_text(text)
    return folder


def source_folder(parent: Path, name: str, source: str) -> Path:
    folder = parent / name
    folder.mkdir()
    (folder / "main.py").write_text(source)
    return folder


ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


def report(channel: Channel, timeout: float = 20.0) -> dict[str, Any]:
    """The attack's REPORT, waiting for it while draining the bot's output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in channel.stderr().splitlines():
            if line.startswith(b"REPORT "):
                result: dict[str, Any] = json.loads(line[len(b"REPORT ") :])
                return result
        try:
            channel.recv(min(deadline, time.monotonic() + 0.1))
        except (ChannelTimeout, LineTooLong):
            pass
        except ChannelClosed:
            time.sleep(0.05)
    raise AssertionError(f"no REPORT from the bot; its stderr: {channel.stderr()[-2000:]!r}")


def containers_labelled(match: str) -> list[str]:
    found = client().containers.list(all=True, filters={"label": f"{MATCH_LABEL}={match}"})
    return [container.id for container in found]


def leftovers_of_this_run() -> list[str]:
    found = client().containers.list(all=True, filters={"label": LABEL})
    return [c.name for c in found if c.labels.get(MATCH_LABEL, "").startswith(RUN_PREFIX)]
