"""What the Docker sandbox tests share: the backends, bot folders, reports, leftovers.

The hostile bots next to this module run their attack at once and write what they
managed as one ``REPORT {json}`` line on standard error; the tests read it from the
channel's capped stderr and assert that the sandbox refused.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
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


def not_the_zygote(processes: list[str]) -> list[str]:
    """The processes an attack found ("UID COMM: CMDLINE") but a pooled Python container's
    zygote (the container's root, named so: ``sandbox.supervisor``), which no bot can
    start (a bot never becomes another user)."""
    return [entry for entry in processes if not entry.startswith("0 zygote: ")]


ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


def report(channel: Channel, timeout: float = 20.0) -> dict[str, Any]:
    """The attack's REPORT, waiting for it while draining the bot's output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = parse_report(channel.stderr())
        if found is not None:
            return found
        try:
            channel.recv(min(deadline, time.monotonic() + 0.1))
        except (ChannelTimeout, LineTooLong):
            pass
        except ChannelClosed:
            time.sleep(0.05)
    raise AssertionError(f"no REPORT from the bot; its stderr: {channel.stderr()[-2000:]!r}")


def containers_labelled(match: str) -> list[str]:
    found = client().containers.list(
        all=True, filters={"label": f"{MATCH_LABEL}={match}"}, ignore_removed=True
    )
    return [container.id for container in found]


def leftovers_of_this_run() -> list[str]:
    found = client().containers.list(all=True, filters={"label": LABEL}, ignore_removed=True)
    return [c.name for c in found if c.labels.get(MATCH_LABEL, "").startswith(RUN_PREFIX)]


def parse_report(log: bytes | str) -> dict[str, Any] | None:
    text = log.decode(errors="replace") if isinstance(log, bytes) else log
    for line in text.splitlines():
        if line.startswith("REPORT "):
            result: dict[str, Any] = json.loads(line[len("REPORT ") :])
            return result
    return None


@contextlib.contextmanager
def unharmed() -> Iterator[int]:
    """Checks that the worker keeps its memory and can still start processes, and that a
    process of the host (its PID is given, for the bots to aim at) survives."""
    sentinel = subprocess.Popen(["sleep", "300"])
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        yield sentinel.pid
        assert subprocess.run(["true"], check=False).returncode == 0
        assert sentinel.poll() is None, "a process of the host was killed"
        grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
        assert grown_kb < 64 << 10, f"the worker grew by {grown_kb} kB"
    finally:
        sentinel.kill()
        sentinel.wait()


def probe_env(tmp_path: Path, host_pid: int, victim_secret: str = "") -> dict[str, str]:
    """What the probing attacks aim at: a host file with a secret, a host process, the
    repository, and another bot's secret."""
    host_secret = "host-" + os.urandom(8).hex()
    marker = tmp_path / "marker.txt"
    marker.write_text(host_secret)
    return {
        "HOST_MARKER": str(marker),
        "HOST_PID": str(host_pid),
        "SECRETS": ",".join(s for s in (host_secret, victim_secret) if s),
        "REPO": str(Path(__file__).resolve().parents[3]),
    }
