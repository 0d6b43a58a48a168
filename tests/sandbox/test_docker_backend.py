"""The Docker backend itself: both transports, the hardening on every container, the
wall clock, leftovers, parallel starts, clear errors, and the bot image."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from sandbox import container_spec, docker_backend, seccomp
from sandbox.channel import ChannelClosed
from sandbox.docker_backend import (
    BOT_SHARES,
    BOTS_CGROUP,
    DockerBackend,
    SandboxError,
    bot_shares_from_env,
)
from sandbox.limits import Limits
from sandbox.parallel import SeatStart, start_many
from sandbox.runtimes import BadBotCode
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]
LAST_WORDS = (
    "import sys\n"
    "for line in sys.stdin:\n"
    "    sys.stdout.write(line)\n"
    "    sys.stdout.flush()\n"
    "print('input ended, bye', file=sys.stderr)\n"
)


@pytest.fixture(params=["pipes", "attach"])
def backend(request: pytest.FixtureRequest) -> DockerBackend:
    return harness.pipe_backend() if request.param == "pipes" else harness.attach_backend()


def echo(tmp_path: Path, source: str = harness.ECHO) -> Path:
    return harness.source_folder(tmp_path, f"bot{len(list(tmp_path.iterdir()))}", source)


def test_a_bot_answers_and_its_last_words_are_kept(tmp_path: Path, backend: DockerBackend) -> None:
    label = harness.label("echo")
    channel = backend.start(echo(tmp_path, LAST_WORDS), label=label, limits=Limits())
    for text in (b'{"type": "hello"}', b"x" * 100_000, "é🂡".encode()):
        channel.send(text)
        assert channel.recv(time.monotonic() + 10) == text
    channel.close()
    channel.close()  # twice is fine
    assert channel.stderr() == b"input ended, bye\n"
    assert harness.containers_labelled(label) == []
    with pytest.raises(ChannelClosed):
        channel.recv(time.monotonic() + 1)
    with pytest.raises(ChannelClosed):
        channel.send(b"more")


def test_the_pipe_folder_holds_only_the_seats_fifos_and_goes_with_it(tmp_path: Path) -> None:
    channel = harness.pipe_backend().start(
        echo(tmp_path), label=harness.label("e"), limits=Limits()
    )
    (folder,) = [p for p in harness.PIPE_ROOT.iterdir() if p.name.endswith(_seat_suffix(channel))]
    assert sorted(p.name for p in folder.iterdir()) == ["err", "in", "out"]
    channel.close()
    assert not folder.exists()


def _seat_suffix(channel: object) -> str:
    return channel.folder.path.name[-12:]  # type: ignore[attr-defined]


def test_every_container_is_hardened(tmp_path: Path) -> None:
    label = harness.label("hardened")
    limits = Limits(memory_mb=200, cpus=0.5, pids=32, open_files=40, file_size_mb=3, tmp_mb=7)
    channel = harness.pipe_backend().start(echo(tmp_path), label=label, limits=limits)
    (container_id,) = harness.containers_labelled(label)
    attrs = harness.client().api.inspect_container(container_id)
    host, config = attrs["HostConfig"], attrs["Config"]
    channel.close()
    assert host["NetworkMode"] == "none" and config["NetworkDisabled"] is True
    assert host["ReadonlyRootfs"] is True
    # PID 1 (docker-init) starts as the container's root with only what it needs to become
    # the bot's user: the bot runs as nobody with no capability (attacks/verdicts.py).
    assert host["CapDrop"] == ["ALL"] and sorted(host["CapAdd"]) == ["SETGID", "SETUID"]
    assert host["Privileged"] is False
    assert "no-new-privileges:true" in host["SecurityOpt"]
    (profile,) = [
        o.removeprefix("seccomp=") for o in host["SecurityOpt"] if o.startswith("seccomp=")
    ]
    assert json.loads(profile) == json.loads(seccomp.profile_text())
    assert config["User"] == "0:0" and config["Cmd"][:2] == ["setpriv", "--reuid=65534"]
    assert host["Init"] is True
    assert host["IpcMode"] == "none"
    assert host["LogConfig"]["Type"] == "none"
    assert host["Memory"] == host["MemorySwap"] == 200 << 20
    assert host["NanoCpus"] == 500_000_000 and host["CpuShares"] == 512
    # This worker's own cgroup, weighing four host processes (not /docker's one: "CPU
    # under load" in docs/sandbox.md): the engine here is cgroupfs on cgroup v1.
    group = docker_backend.worker_cgroup()
    assert host["CgroupParent"] == f"/{group}" and group.startswith(f"{BOTS_CGROUP}-")
    assert Path(f"/sys/fs/cgroup/cpu/{group}/cpu.shares").read_text().strip() == "4096"
    assert host["PidsLimit"] == 32
    ulimits = {u["Name"]: (u["Soft"], u["Hard"]) for u in host["Ulimits"]}
    assert ulimits == {"nofile": (40, 40), "fsize": (3 << 20, 3 << 20), "core": (0, 0)}
    assert host["Tmpfs"] == {"/tmp": "rw,noexec,nosuid,nodev,size=7m,mode=1777"}
    mounts = {m["Target"]: m for m in host["Mounts"]}
    assert mounts["/bot"]["Type"] == "volume"  # the code came through the API
    assert mounts["/seat"]["Type"] == "bind" and mounts["/seat"]["ReadOnly"] is True
    assert set(mounts) == {"/bot", "/seat"} and not host["Binds"]
    assert config["Labels"][docker_backend.MATCH_LABEL] == label


def test_the_seccomp_profile_is_dockers_default_without_io_uring() -> None:
    profile = json.loads(seccomp.PROFILE.read_text())
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    first, *rules = profile["syscalls"]
    assert first == {
        "names": list(seccomp.IO_URING),
        "action": "SCMP_ACT_ERRNO",
        "errnoRet": 1,
        "args": [],
    }
    allowed = {
        name for rule in rules if rule["action"] == "SCMP_ACT_ALLOW" for name in rule["names"]
    }
    assert not allowed & set(seccomp.IO_URING)
    assert {"read", "write", "clone", "execve", "futex"} <= allowed
    toy = {"syscalls": [{"names": ["read", "io_uring_enter"], "action": "SCMP_ACT_ALLOW"}]}
    assert seccomp.without_io_uring(toy)["syscalls"][1]["names"] == ["read"]


def test_the_wall_clock_kills_a_bot_that_outlives_it(tmp_path: Path) -> None:
    folder = harness.bot_folder(tmp_path, "sleep_forever")
    label = harness.label("clock")
    channel = harness.pipe_backend().start(folder, label=label, limits=Limits(wall_clock_s=1))
    started = time.monotonic()
    with pytest.raises(ChannelClosed):
        channel.recv(started + 20)
    assert 0.9 < time.monotonic() - started < 10
    channel.close()
    assert harness.containers_labelled(label) == []


def test_leftovers_of_a_dead_worker_are_removed_and_a_live_ones_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = harness.pipe_backend()
    alive = backend.start(echo(tmp_path), label=harness.label("alive"), limits=Limits())
    dead_owner = container_spec.owner_id(pid=1)[:-1] + "0"  # PID 1, but not its start time
    monkeypatch.setattr(container_spec, "owner_id", lambda: dead_owner)
    orphan_label = harness.label("orphan")
    orphan = backend.start(echo(tmp_path), label=orphan_label, limits=Limits())
    folder = orphan.folder.path  # type: ignore[attr-defined]
    assert docker_backend.remove_leftovers(harness.client()) >= 1
    assert harness.containers_labelled(orphan_label) == []
    assert not folder.exists()
    orphan.close()  # its container already gone: still fine
    alive.send(b"still here")
    assert alive.recv(time.monotonic() + 10) == b"still here"
    alive.close()


def test_a_table_starts_in_parallel_and_all_answer(tmp_path: Path) -> None:
    seats = [SeatStart(echo(tmp_path), harness.label(f"table{i}")) for i in range(6)]
    channels = start_many(harness.pipe_backend(), seats)
    for number, channel in enumerate(channels):
        channel.send(b"seat %d" % number)
    assert [c.recv(time.monotonic() + 10) for c in channels] == [b"seat %d" % n for n in range(6)]
    for channel in channels:
        channel.close()
    assert all(harness.containers_labelled(seat.label) == [] for seat in seats)


def test_when_one_seat_cannot_start_the_others_are_stopped(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    seats = [SeatStart(echo(tmp_path), harness.label("fine")), SeatStart(empty, harness.label("x"))]
    with pytest.raises(BadBotCode, match=r"no entry file.*main\.py"):
        start_many(harness.pipe_backend(), seats)
    assert harness.containers_labelled(seats[0].label) == []


def test_bad_code_and_environment_are_refused_clearly(tmp_path: Path) -> None:
    backend = harness.pipe_backend()
    folder = echo(tmp_path)
    (folder / "pipe").symlink_to("/etc/passwd")
    with pytest.raises(BadBotCode, match="only files and folders"):
        backend.start(folder, label=harness.label("bad"), limits=Limits())
    with pytest.raises(ValueError, match="bad environment variable"):
        backend.start(echo(tmp_path), label=harness.label("bad"), limits=Limits(), env={"A=B": "1"})
    with pytest.raises(ValueError, match="must be positive"):
        Limits(memory_mb=0)


def test_an_engine_that_does_not_answer_says_to_run_the_bootstrap(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with pytest.raises(SandboxError, match="run scripts/bootstrap"):
        DockerBackend()


def test_a_missing_image_says_how_to_build_it() -> None:
    with pytest.raises(SandboxError, match="scripts/build-bot-image"):
        DockerBackend(image="cardjudge/no-such-image:never", client=harness.client())


def test_bots_can_import_botkit_from_the_image(tmp_path: Path) -> None:
    source = "import botkit, sys\nprint(botkit.__file__)\nsys.stdout.flush()\n"
    channel = harness.pipe_backend().start(
        echo(tmp_path, source), label=harness.label("kit"), limits=Limits()
    )
    assert channel.recv(time.monotonic() + 10) == b"/opt/botkit/botkit.py"
    channel.close()


def test_the_image_build_is_skipped_when_nothing_changed() -> None:
    started = time.monotonic()
    run = subprocess.run(
        [str(REPO / "scripts" / "build-bot-image")], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert "building" not in run.stderr
    assert time.monotonic() - started < 60  # a build from nothing takes minutes


def test_the_runtime_images_build_is_skipped_when_nothing_changed() -> None:
    run = subprocess.run(
        [str(REPO / "scripts" / "build-runtime-images")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "building" not in run.stderr


def test_the_pipe_root_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    def root() -> Path | None:
        return DockerBackend(client=harness.client(), clean=False).pipe_root

    # Under the tests' pipe root's folder: one a remapping engine's users can reach.
    chosen = harness.PIPE_ROOT.parent / "cardjudge-test-env-pipes"
    monkeypatch.setenv("JUDGE_PIPE_ROOT", str(chosen))
    assert root() == chosen
    monkeypatch.setenv("JUDGE_PIPE_ROOT", "")
    assert root() is None  # the attach stream
    monkeypatch.delenv("JUDGE_PIPE_ROOT")
    assert root() is None
    assert DockerBackend(pipe_root=None, client=harness.client(), clean=False).pipe_root is None


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []


def test_the_bots_cpu_weight_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_BOT_CPU_SHARES", "0")
    assert bot_shares_from_env() == 0
    monkeypatch.setenv("JUDGE_BOT_CPU_SHARES", "lots")
    with pytest.raises(ValueError, match="JUDGE_BOT_CPU_SHARES='lots': give a CPU weight"):
        bot_shares_from_env()
    monkeypatch.delenv("JUDGE_BOT_CPU_SHARES")
    assert bot_shares_from_env() == BOT_SHARES == 4096
