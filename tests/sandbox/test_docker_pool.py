"""Pooled containers (sandbox.pool, the worker's default lifecycle): a Python bot's
containers serve later matches, a fresh process per seating, and no container ever
serves two seatings of one match, so a bot that keeps the deal in /tmp, in a daemon or
in a child (attacks/remember.py) finds nothing of it, in the next rotation or in the
next match. The pool is bounded (size, idle time), never keeps a container that was
killed, and a stopping worker process removes what it holds."""

from __future__ import annotations

import dataclasses
import io
import os
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sandbox.channel import ChannelClosed
from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from sandbox.parallel import SeatStart
from sandbox.pool import PoolLimits
from sandbox.reuse import ReusedSeat
from sandbox.runtimes import RUNTIMES
from tests.sandbox.attacks import harness
from tests.sandbox.test_docker_lifecycle import (
    assert_nothing_remembered,
    duplicate_plan,
    remember_plan,
    zipped,
)
from tournaments.play import runner

pytestmark = pytest.mark.docker

STARTERS = Path(__file__).resolve().parents[2] / "starters"
SLEEPER = "import time\ntime.sleep(600)\n"
SAYS_SEED = (
    "import os, sys\nprint('SEED', os.environ.get('JUDGE_HOUSE_SEED'), file=sys.stderr)\n"
    + harness.ECHO
)


def backend(size: int = 48, idle_s: float = 300.0) -> DockerBackend:
    """A backend of the test's own, so its pool holds only this test's containers."""
    limits = PoolLimits(size=size, idle_s=idle_s)
    return DockerBackend(pipe_root=harness.PIPE_ROOT, client=harness.client(), pool_limits=limits)


@dataclass
class Spawns:
    """(match, container) of every seating's spawn, the container named by its folder."""

    match: int = 0
    made: list[tuple[int, str]] = field(default_factory=list)

    def of(self, match: int) -> list[str]:
        return [name for seen, name in self.made if seen == match]


@pytest.fixture
def spawns(monkeypatch: pytest.MonkeyPatch) -> Spawns:
    record = Spawns()
    original = ReusedSeat.spawn

    def spawn(self: ReusedSeat, env: Any = None) -> Any:
        record.made.append((record.match, self.folder.path.name))
        return original(self, env)

    monkeypatch.setattr(ReusedSeat, "spawn", spawn)
    return record


def test_containers_serve_later_matches_never_two_seatings_of_one(spawns: Spawns) -> None:
    instance = harness.label("pool")
    pooled = backend()
    try:
        for match_id in (1, 2):
            spawns.match = match_id
            plan = remember_plan(instance, match_id)
            outcome, _ = runner.play(plan, lambda: pooled, lifecycle="pool")
            assert_nothing_remembered(outcome)  # match 2 runs in match 1's containers: wiped
        first, second = spawns.of(1), spawns.of(2)
        assert len(first) == len(second) == 16  # four bots, four seatings
        assert len(set(first)) == 16 and len(set(second)) == 16  # one seating each per match
        assert set(second) == set(first)  # all of match 1's, none new
        assert (pooled.pool.hits, pooled.pool.misses) == (16, 16)
        labels = harness.containers_labelled(f"{instance}-pool")
        assert len(labels) == 16 and pooled.pool.idle() == 16
        spawns.match = 3  # match 1 played again (resumed, retried): the same deals
        outcome, _ = runner.play(remember_plan(instance, 1), lambda: pooled, lifecycle="pool")
        assert outcome["faults"] == []
        assert not set(spawns.of(3)) & set(first)  # no container that saw them
        assert len(set(spawns.of(3))) == 16
    finally:
        assert pooled.pool.close()
    assert harness.containers_labelled(f"{instance}-pool") == []


def test_house_bots_get_their_seed_per_seating_and_share_containers(tmp_path: Path) -> None:
    """A house bot's folder is the same in every match (its seed comes by environment),
    so its containers are pooled like an upload's."""
    pooled = backend()
    folder = tmp_path / "seed"
    folder.mkdir()
    (folder / "main.py").write_text(SAYS_SEED)
    seat = SeatStart(folder, harness.label("seed"))
    try:
        container = pooled.start_pooled(seat, harness.label("seed-pool"))
        for value in ("11", "12"):
            channel = container.spawn({"JUDGE_HOUSE_SEED": value})
            channel.send(b"ping")
            assert channel.recv(time.monotonic() + 60) == b"ping"
            channel.close()
            assert channel.stderr().decode().split() == ["SEED", value]
        assert not container.broken
        with pytest.raises(ValueError, match="environment"):
            container.spawn({"X": "y" * 5000})
    finally:
        container.close()
    assert container.wait_removed(60)
    house = []
    for seed in (1, 2):
        (tmp_path / f"m{seed}").mkdir()
        house.append(runner._prepare(_plan(seed), 1, tmp_path / f"m{seed}"))
    keys = {pooled.pool_key(SeatStart(path, "house")) for path in house}
    assert len(keys) == 1
    seeds = {runner.seat_env(_plan(seed), 1, None)["JUDGE_HOUSE_SEED"] for seed in (1, 2)}
    assert len(seeds) == 2
    assert runner.seat_env(_plan(1), 0, None) is None  # an upload's seat gets none


def _plan(seed: int) -> runner.MatchPlan:
    seats = [
        runner.SeatPlan("a", "", code=zipped(harness.ECHO)),
        runner.SeatPlan("house:random", "", house_policy="random"),
    ]
    plan = duplicate_plan("oceans11", seats, "x")
    return runner.MatchPlan(**{**plan.__dict__, "seed": seed})


def test_a_seating_past_its_wall_clock_is_killed_and_its_container_not_kept(
    tmp_path: Path,
) -> None:
    pooled = backend()
    folder = harness.source_folder(tmp_path, "sleeper", SLEEPER)
    seat = SeatStart(folder, harness.label("clock"), Limits(wall_clock_s=3))
    label = harness.label("clock-pool")
    container = pooled.start_pooled(seat, label)
    channel = container.spawn()
    began = time.monotonic()
    with pytest.raises(ChannelClosed):  # killed at its seating's clock, not the pool's hour
        channel.recv(time.monotonic() + 120)
    assert time.monotonic() - began < 110
    channel.close()
    assert container.broken
    pooled.pool.give(pooled.pool_key(seat), container)
    assert pooled.pool.idle() == 0
    assert container.wait_removed(60)
    assert harness.containers_labelled(label) == []


def test_the_pool_keeps_at_most_its_size_and_nothing_idle_too_long(tmp_path: Path) -> None:
    # Idle for 300 s while the size is checked: removing the oldest two can take longer
    # than a short idle limit on a loaded host, and the sweeper then took the newest too.
    pooled = backend(size=2)
    folder = harness.source_folder(tmp_path, "echo", harness.ECHO)
    seat = SeatStart(folder, harness.label("bounded"))
    label = harness.label("bounded-pool")
    key = pooled.pool_key(seat)
    made = [pooled.start_pooled(seat, label) for _ in range(4)]
    for container in made:
        pooled.pool.give(key, container)
    assert pooled.pool.idle() == 2
    assert all(container.wait_removed(60) for container in made[:2])  # the oldest went
    assert pooled.pool.take(key) is made[3]  # the most recent first
    pooled.pool.give(key, made[3])
    pooled.pool.limits = dataclasses.replace(pooled.pool.limits, idle_s=1.0)
    deadline = time.monotonic() + 60
    while pooled.pool.idle() and time.monotonic() < deadline:  # idle past its second
        time.sleep(0.2)
        pooled.pool.sweep()
    assert pooled.pool.idle() == 0
    assert all(container.wait_removed(60) for container in made)
    assert harness.containers_labelled(label) == []


def test_a_stopping_worker_process_removes_its_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tournaments.play import tasks

    pooled = backend()
    folder = harness.source_folder(tmp_path, "echo", harness.ECHO)
    seat = SeatStart(folder, harness.label("stopping"))
    label = harness.label("stopping-pool")
    pooled.pool.give(pooled.pool_key(seat), pooled.start_pooled(seat, label))
    assert len(harness.containers_labelled(label)) == 1
    monkeypatch.setitem(tasks._backends, (os.getpid(), "docker"), pooled)
    tasks.close_container_pool()
    assert harness.containers_labelled(label) == []
    late = pooled.start_pooled(seat, label)
    pooled.pool.give(pooled.pool_key(seat), late)  # the pool is closed: ended, not kept
    assert pooled.pool.idle() == 0
    assert late.wait_removed(60)


def test_pool_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_SANDBOX_POOL_SIZE", "7")
    monkeypatch.setenv("JUDGE_SANDBOX_POOL_IDLE_SECONDS", "30")
    assert PoolLimits.from_env() == PoolLimits(size=7, idle_s=30.0)
    monkeypatch.setenv("JUDGE_SANDBOX_POOL_SIZE", "lots")
    with pytest.raises(ValueError, match="JUDGE_SANDBOX_POOL_SIZE='lots': give a number"):
        PoolLimits.from_env()


def test_no_container_of_these_tests_is_left() -> None:
    assert harness.leftovers_of_this_run() == []


def zipped_folder(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.iterdir()):
            archive.write(path, path.name)
    return buffer.getvalue()


@pytest.mark.parametrize("language", sorted(RUNTIMES))
def test_every_runtime_plays_in_pooled_containers(spawns: Spawns, language: str) -> None:
    """Every runtime image carries the supervisor's interpreter, so a match with a bot of
    any language is pooled (none falls back to fresh containers for the whole table)."""
    pooled = backend()
    seats = [
        runner.SeatPlan(language, "", code=zipped_folder(STARTERS / language)),
        runner.SeatPlan("house:random", "", house_policy="random"),
    ]
    plan = duplicate_plan("oceans11", seats, harness.label(f"pool-{language}"))
    try:
        outcome, _ = runner.play(plan, lambda: pooled, lifecycle="pool")
        assert outcome["faults"] == []
        assert len(spawns.of(0)) == 4  # two bots, two seatings: all in pooled containers
        assert pooled.pool.idle() == 4
    finally:
        assert pooled.pool.close()
