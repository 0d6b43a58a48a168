"""A kernel per sandbox (issue 43): ``DockerBackend(runtime="runsc")`` (or
JUDGE_SANDBOX_RUNTIME=runsc) runs each bot under gVisor, the runtime scripts/bootstrap
registers with the engine it starts. The bot then sees gVisor's kernel, not the host's, a
match plays as with runc (the attach stream, the fresh lifecycle), and the host's caches
stop carrying messages between containers: the page cache, which carries every bit
across runc containers (tests/sandbox/test_channels.py), carries about none."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sandbox import channels
from sandbox.docker_backend import GVISOR, DockerBackend, SandboxError
from sandbox.limits import Limits
from tests.sandbox.attacks import harness
from tournaments.play import runner

pytestmark = pytest.mark.docker

SAYS_KERNEL = (
    "import os, sys\nprint(open('/proc/version').read().split()[2], os.getuid(), flush=True)\n"
    "sys.stdin.readline()\n"
)


def gvisor() -> DockerBackend:
    runtimes = harness.client().info().get("Runtimes") or {}
    assert GVISOR in runtimes, (
        "the Docker engine has no runsc runtime: restart it with scripts/bootstrap "
        "(docs/sandbox.md, 'A kernel per sandbox')"
    )
    return DockerBackend(pipe_root=harness.PIPE_ROOT, client=harness.client(), runtime=GVISOR)


def test_a_bot_under_gvisor_sees_its_own_kernel(tmp_path: Path) -> None:
    backend = gvisor()
    assert backend.pipe_root is None  # the attach stream: gVisor's FIFOs are not reliable
    host = Path("/proc/version").read_text().split()[2]
    code = harness.source_folder(tmp_path, "bot", SAYS_KERNEL)
    channel = backend.start(code, label=harness.label("gvisor"), limits=Limits())
    try:
        kernel, uid = channel.recv(time.monotonic() + 60).decode().split()
    finally:
        channel.close()
    assert kernel != host and uid == "65534"


def test_a_match_plays_under_gvisor() -> None:
    backend = gvisor()
    seats = [
        runner.SeatPlan(name=f"house:{p}", content_hash="", house_policy=p)
        for p in ("random", "greedy")
    ]
    plan = runner.MatchPlan(
        match_id=1, game="oceans11", variant="", options={}, seed=7, games=1, duplicate=True,
        time_control={"startup_s": 60.0, "move_s": 10.0, "bank_s": 60.0}, limits={},
        seats=seats, instance=harness.label("gvisor-match"),
    )  # fmt: skip
    outcome, _ = runner.play(plan, lambda: backend, lifecycle="pool")  # plays fresh
    assert outcome["faults"] == [] and len(outcome["games"]) == 2


def test_the_page_cache_carries_about_nothing_across_gvisor_sandboxes() -> None:
    with channels.probing(gvisor(), label=harness.label("gvisor-channels")) as prober:
        assert prober.scopes() == ("across",)
        found = channels.measure(prober, "pagecache", "across", handovers=2, bits=128)
    assert found.error_rate > 0.3, found.row()
    assert found.capacity < 0.15 * found.bits


def test_a_runtime_the_engine_lacks_is_refused() -> None:
    with pytest.raises(SandboxError, match="no runtime 'nope'"):
        DockerBackend(pipe_root=None, client=harness.client(), clean=False, runtime="nope")


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []
