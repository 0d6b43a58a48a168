"""The Docker sandbox's costs, each beside a baseline measured in the same run.

- Round trip per message (send a line, receive the echo): the sandbox channel over named
  pipes, and over the engine's attach stream (the fallback), beside a plain pipe to a
  local process (a bare ``readline`` client) and beside the local backend's channel
  (plain pipes behind the same channel interface). Goal: pipes within 1.5x of a plain pipe.
  Measured in interleaved rounds (the machine is shared), median per round trip.
- Start-to-ready: ``start`` until the first echo comes back, in a container beside a
  local process; and a table of four started together beside one.
- Match wall time, start-up included: a 2-player (Oceans 11) and a 4-player (Big Two)
  match of house bots in Docker beside local processes.
- Memory per idle bot: the container's memory use (its cgroup) beside the resident size
  of the same bot as a local process.

Run: ``python -m bench.sandbox.costs [--rounds R] [--trips N]`` (about a minute).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from judge.cli.sandboxing import PreparedBot, SandboxChannel, prepare_bot, starter
from judge.referee import MatchSpec, TimeControl, play_match
from sandbox.channel import Channel
from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from sandbox.local import LocalBackend, NotASandboxWarning
from sandbox.parallel import SeatStart, start_many
from sandbox.pipes import PipeChannel, SeatFolder

ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"
MESSAGE = b'{"type":"act","observation":{"hand":["As","Kd","7c"]},"legal":[0,1,2]}'
LIMITS = Limits()


def per_trip(send: Callable[[bytes], None], recv: Callable[[], bytes], trips: int) -> float:
    started = time.perf_counter()
    for _ in range(trips):
        send(MESSAGE)
        recv()
    return (time.perf_counter() - started) / trips


def channel_trip(channel: Channel) -> Callable[[int], float]:
    def run(trips: int) -> float:
        return per_trip(channel.send, lambda: channel.recv(time.monotonic() + 10), trips)

    return run


def plain_pipe(bot: Path) -> tuple[Callable[[int], float], Callable[[], None]]:
    process = subprocess.Popen(
        [sys.executable, str(bot / "main.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdin and process.stdout
    stdin, stdout = process.stdin, process.stdout

    def send(line: bytes) -> None:
        stdin.write(line + b"\n")
        stdin.flush()

    def run(trips: int) -> float:
        return per_trip(send, stdout.readline, trips)

    def stop() -> None:
        process.kill()
        process.wait()

    return run, stop


def same_channel_locally(bot: Path, root: Path) -> tuple[Channel, Callable[[], None]]:
    """The sandbox's pipe channel to a local process: the same code with no container, so
    the difference from "docker pipes" is the container alone."""
    seat = SeatFolder.create(root, "bench-local-fifo", os.getuid())
    channel = PipeChannel(seat, LIMITS, lambda: None, 0.1)
    process = subprocess.Popen(seat.command([sys.executable, str(bot / "main.py")], str(seat.path)))

    def stop() -> None:
        channel.close()
        process.kill()
        process.wait()

    return channel, stop


def round_trips(
    bot: Path,
    docker: DockerBackend,
    attach: DockerBackend,
    local: LocalBackend,
    rounds: int,
    trips: int,
) -> dict[str, float]:
    plain, stop_plain = plain_pipe(bot)
    fifo, stop_fifo = same_channel_locally(bot, docker.pipe_root or bot.parent)
    channels = {
        "same channel, local process": fifo,
        "local backend": local.start(bot, label="bench-local", limits=LIMITS),
        "docker pipes": docker.start(bot, label="bench-pipes", limits=LIMITS),
        "docker attach": attach.start(bot, label="bench-attach", limits=LIMITS),
    }
    runners = {"plain pipe": plain} | {name: channel_trip(c) for name, c in channels.items()}
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for run in runners.values():
        run(200)  # warm up
    for _ in range(rounds):
        for name, run in runners.items():
            samples[name].append(run(trips))
    stop_plain()
    stop_fifo()
    for channel in channels.values():
        channel.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def ready_time(start: Callable[[], Channel]) -> float:
    began = time.perf_counter()
    channel = start()
    channel.send(b"ready?")
    channel.recv(time.monotonic() + 30)
    elapsed = time.perf_counter() - began
    channel.close()
    return elapsed


def table_ready(docker: DockerBackend, bot: Path, size: int) -> float:
    began = time.perf_counter()
    channels = start_many(docker, [SeatStart(bot, f"bench-table{i}") for i in range(size)])
    for channel in channels:
        channel.send(b"ready?")
    for channel in channels:
        channel.recv(time.monotonic() + 30)
    elapsed = time.perf_counter() - began
    for channel in channels:
        channel.close()
    return elapsed


def container_memory(docker: DockerBackend, bot: Path) -> tuple[float, float]:
    """The idle bot's container: its cgroup's memory use, and its processes' resident size."""
    channel = docker.start(bot, label="bench-memory", limits=LIMITS)
    channel.send(b"ready?")
    channel.recv(time.monotonic() + 30)
    time.sleep(0.5)
    (container,) = docker.client.containers.list(filters={"label": "cardjudge.match=bench-memory"})
    stats = container.stats(stream=False, one_shot=True)["memory_stats"]
    used = stats["usage"] - stats.get("stats", {}).get("total_inactive_file", 0)
    init = int(container.attrs["State"]["Pid"])
    children = Path(f"/proc/{init}/task/{init}/children").read_text().split()
    resident = sum(rss(int(pid)) for pid in [init, *children])
    channel.close()
    return float(used), resident


def rss(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return 1024.0 * next(int(s.split()[1]) for s in status.splitlines() if s.startswith("VmRSS"))


def process_memory(bot: Path) -> float:
    process = subprocess.Popen(
        [sys.executable, str(bot / "main.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdin and process.stdout
    process.stdin.write(b"ready?\n")
    process.stdin.flush()
    process.stdout.readline()
    resident = rss(process.pid)
    process.kill()
    process.wait()
    return resident


def match_time(
    game: str,
    bots: list[PreparedBot],
    backend_name: str,
    docker: DockerBackend,
    local: LocalBackend,
) -> float:
    spec = MatchSpec(game, seed=7, games=2, time=TimeControl(20.0, 5.0, 20.0))
    infos = [bot.info for bot in bots]
    began = time.perf_counter()
    if backend_name == "docker":
        seats = [SeatStart(bot.folder, f"bench-{game}-{i}") for i, bot in enumerate(bots)]
        channels = start_many(docker, seats)
        outcome = play_match(spec, infos, lambda i: SandboxChannel(channels[i]))
    else:
        outcome = play_match(spec, infos, starter(local, bots, label="bench", limits=LIMITS))
    assert not outcome.faults, outcome.faults
    return time.perf_counter() - began


def show(name: str, value: float, unit: str, baseline_name: str, baseline: float) -> None:
    print(
        f"  {name:<30} {value:8.1f} {unit:<3} vs {baseline_name:<17} {baseline:8.1f} {unit:<3}"
        f"  ratio {value / baseline:5.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--trips", type=int, default=2000)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotASandboxWarning)
        local = LocalBackend()
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as folder:
        Path(folder).chmod(0o711)  # reachable by a remapping engine (docs/deploy.md)
        measure(Path(folder), local, args.rounds, args.trips)


def measure(work: Path, local: LocalBackend, rounds: int, trips_per_round: int) -> None:
    docker = DockerBackend(pipe_root=work / "pipes")
    attach = DockerBackend(pipe_root=None, clean=False)
    bot = work / "echo"
    bot.mkdir()
    (bot / "main.py").write_text(ECHO)

    print(f"round trip per message (median of {rounds} rounds of {trips_per_round}):")
    trips = round_trips(bot, docker, attach, local, rounds, trips_per_round)
    plain = trips["plain pipe"] * 1e6
    print(f"  {'plain pipe (readline client)':<30} {plain:8.1f} us")
    names = ("same channel, local process", "local backend", "docker pipes", "docker attach")
    for name in names:
        show(name, trips[name] * 1e6, "us", "plain pipe", plain)
    same = trips["same channel, local process"] * 1e6
    show("docker pipes", trips["docker pipes"] * 1e6, "us", "same channel", same)
    show("docker attach", trips["docker attach"] * 1e6, "us", "same channel", same)
    ratio = trips["docker pipes"] / trips["plain pipe"]
    verdict = "met" if ratio <= 1.5 else "MISSED"
    print(f"  goal: docker pipes within 1.5x of a plain pipe: {verdict} ({ratio:.2f}x)")

    print("start-to-ready (median of 5):")
    local_ready = statistics.median(
        ready_time(lambda: local.start(bot, label="bench", limits=LIMITS)) for _ in range(5)
    )
    docker_ready = statistics.median(
        ready_time(lambda: docker.start(bot, label="bench", limits=LIMITS)) for _ in range(5)
    )
    show("container", docker_ready * 1e3, "ms", "local process", local_ready * 1e3)
    show(
        "4 containers together",
        table_ready(docker, bot, 4) * 1e3,
        "ms",
        "one container",
        docker_ready * 1e3,
    )

    print("match wall time, start-up included (2 games):")
    for game, names in (("oceans11", ["greedy", "random"]), ("bigtwo", ["greedy"] * 4)):
        bots = [prepare_bot(f"house:{name}", game, work, seed=i) for i, name in enumerate(names)]
        in_docker = match_time(game, bots, "docker", docker, local)
        in_local = match_time(game, bots, "local", docker, local)
        show(f"{game}, {len(bots)} players, docker", in_docker * 1e3, "ms", "local", in_local * 1e3)

    print("memory per idle bot:")
    cgroup, resident = container_memory(docker, bot)
    local_rss = process_memory(bot) / 2**20
    show("container, resident (init + bot)", resident / 2**20, "MiB", "local RSS", local_rss)
    show("container, cgroup use", cgroup / 2**20, "MiB", "local RSS", local_rss)


if __name__ == "__main__":
    main()
