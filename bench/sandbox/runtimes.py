"""What each bot language costs in the Docker sandbox, against Python in the same run.

For each runtime's starter bot (starters/LANGUAGE), in interleaved rounds (the machine is
shared, so every runtime sees the same load), medians of:

- start-to-ready: ``start`` (the build already made: it is once per version) until the
  ``ready`` answer to ``hello`` arrives. The start-up limit (10 s by default) must fit the
  slowest runtime;
- idle memory: the bot container's memory use (its cgroup) after ``ready``;
- per-move round trip: writing an ``act`` line until the ``action`` line is read;

and once per runtime, the cold build: compiling the starter into an empty build store.

Run: ``python -m bench.sandbox.runtimes [--rounds R] [--moves N]`` (about two minutes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from judge import protocol
from sandbox.builds import BuildStore
from sandbox.channel import Channel
from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from sandbox.pipes import temporary_root
from sandbox.runtimes import RUNTIMES

STARTERS = Path(__file__).resolve().parents[2] / "starters"
LIMITS = Limits()
HELLO = protocol.encode(
    protocol.hello(
        bot=0,
        seat=0,
        game="bigtwo",
        variant="standard",
        options={},
        players=2,
        games=1,
        time={"startup_s": 10.0, "move_s": 1.0, "bank_s": 10.0},
    )
)
ACT = json.dumps(
    {
        "type": "act",
        "game": 0,
        "move": 1,
        "seat": 0,
        "observation": {"hand": ["4h", "6h", "6s", "8c", "9c", "Th", "Jd", "Jh", "Js", "As"]},
        "legal": ["pass", ["6h", "6s"], ["Jd", "Jh"], ["Jd", "Js"], ["Jh", "Js"]],
        "time": {"move_s": 1.0, "bank_s": 10.0},
    },
    separators=(",", ":"),
).encode()


def ready(docker: DockerBackend, name: str) -> tuple[Channel, float]:
    began = time.perf_counter()
    channel = docker.start(STARTERS / name, label=f"bench-runtime-{name}", limits=LIMITS)
    channel.send(HELLO)
    answer = channel.recv(time.monotonic() + 60)
    assert json.loads(answer) == {"type": "ready"}, answer
    return channel, time.perf_counter() - began


def memory(docker: DockerBackend, name: str) -> float:
    time.sleep(0.3)
    filters = {"label": f"cardjudge.match=bench-runtime-{name}"}
    (container,) = docker.client.containers.list(filters=filters)
    stats = container.stats(stream=False, one_shot=True)["memory_stats"]
    return float(stats["usage"] - stats.get("stats", {}).get("inactive_file", 0))


def round_trip(channel: Channel, moves: int) -> float:
    began = time.perf_counter()
    for _ in range(moves):
        channel.send(ACT)
        channel.recv(time.monotonic() + 30)
    return (time.perf_counter() - began) / moves


def cold_builds(names: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-builds-") as folder:
        docker = DockerBackend(pipe_root=None, builds=BuildStore(Path(folder)))
        took = {}
        for name in names:
            began = time.perf_counter()
            docker.build(STARTERS / name, label=f"bench-build-{name}")
            took[name] = time.perf_counter() - began
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--moves", type=int, default=300)
    args = parser.parse_args()
    names = list(RUNTIMES)
    builds = cold_builds(names)
    root = temporary_root("bench-pipes-")
    docker = DockerBackend(pipe_root=root)
    for name in names:
        docker.build(STARTERS / name)  # warm: matches reuse a version's build
    figures: dict[str, dict[str, list[float]]] = {
        n: {"ready": [], "mem": [], "trip": []} for n in names
    }
    for _ in range(args.rounds):
        for name in names:
            channel, took = ready(docker, name)
            figures[name]["ready"].append(took)
            figures[name]["mem"].append(memory(docker, name))
            figures[name]["trip"].append(round_trip(channel, args.moves))
            channel.close()
    show(names, builds, figures)


def show(
    names: list[str], builds: dict[str, float], figures: dict[str, dict[str, list[float]]]
) -> None:
    base = {key: statistics.median(values) for key, values in figures["python"].items()}
    print(
        f"{'runtime':<8} {'cold build':>10} {'start-to-ready':>22} {'idle memory':>22} "
        f"{'round trip':>22}"
    )
    for name in names:
        med = {key: statistics.median(values) for key, values in figures[name].items()}
        print(
            f"{name:<8} {builds[name]:9.1f}s "
            f"{med['ready'] * 1e3:8.0f} ms ({med['ready'] / base['ready']:5.2f}x) "
            f"{med['mem'] / 2**20:8.1f} MiB ({med['mem'] / base['mem']:5.2f}x) "
            f"{med['trip'] * 1e6:8.0f} us ({med['trip'] / base['trip']:5.2f}x)"
        )
    print("ratios are against the python runtime, measured in the same interleaved rounds")


if __name__ == "__main__":
    main()
