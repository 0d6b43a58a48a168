"""The attack suite's native cousin: a C++ bot (compiled in the sandbox, so no interpreter
in its way) tries the host's services, writing outside /tmp, running what it wrote,
privileges, io_uring, a fork bomb and a memory bomb at once; every one is refused, and the
bots of every other runtime get the very same container (read back from the engine)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from sandbox.limits import Limits
from sandbox.runtimes import RUNTIMES
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

ATTACK = Path(__file__).resolve().parent / "attacks" / "native.cpp"
STARTERS = Path(__file__).resolve().parents[2] / "starters"
LIMITS = Limits(memory_mb=128, pids=32)


def test_native_code_is_refused_everything(tmp_path: Path) -> None:
    code = tmp_path / "native"
    code.mkdir()
    shutil.copyfile(ATTACK, code / "main.cpp")
    with harness.unharmed():
        label = harness.label("native")
        channel = harness.pipe_backend().start(code, label=label, limits=LIMITS)
        try:
            report = harness.report(channel, timeout=120)
            channel.send(b"still here?")
            assert channel.recv(time.monotonic() + 30) == b"still here?"
        finally:
            channel.close()
    refused = {key: value for key, value in report.items() if value == "done"}
    assert refused == {"write_tmp": "done"}, report  # /tmp is the one writable place
    assert 0 < report["memory_mb"] < LIMITS.memory_mb, report
    assert report["forks"] < LIMITS.pids, report
    assert harness.containers_labelled(label) == []


@pytest.mark.parametrize("language", sorted(RUNTIMES))
def test_every_runtime_gets_the_same_hardened_container(language: str) -> None:
    label = harness.label(f"hardening-{language}")
    channel = harness.pipe_backend().start(STARTERS / language, label=label, limits=LIMITS)
    try:
        (container,) = harness.client().containers.list(
            filters={"label": f"cardjudge.match={label}"}
        )
        config, host = container.attrs["Config"], container.attrs["HostConfig"]
    finally:
        channel.close()
    assert config["User"] == "0:0" and config["Cmd"][:2] == ["setpriv", "--reuid=65534"]
    assert config["NetworkDisabled"] is True and host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True and host["CapDrop"] == ["ALL"]
    assert "no-new-privileges:true" in host["SecurityOpt"]
    assert host["Memory"] == host["MemorySwap"] == LIMITS.memory_mb << 20
    assert host["PidsLimit"] == LIMITS.pids
    assert "noexec" in host["Tmpfs"]["/tmp"]
    assert config["Image"] == RUNTIMES[language].image
