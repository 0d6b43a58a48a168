"""What a seating's forked Python bot costs at least: the floor under issue 45's 20x.

``bench.sandbox.throughput --cpu`` measures a whole match; this takes one seating's bot
process apart, inside the Python runtime image, with the supervisor's own code: a zygote
made as the supervisor makes it (``sandbox.supervisor``'s functions: botkit and numpy
imported, its signals set, ``gc.freeze``), forking children that a driver in the
worker's place feeds through FIFOs one Big Two deal's messages for one seat (made by the
engine and the referee's encoder, as a match sends them). Each child's CPU and page
faults are its own (``wait4``); the zygote's fork is timed in the zygote. Children:

- ``fork + exit``: forked, then ``os._exit`` at once (the kernel's fork and exit, and
  Python's after-fork hooks: the least any forked process costs);
- ``set-up``: ``run_bot`` of an empty ``/bot/main.py`` (the clean state, FIFOs,
  streams, environment, compile, finish), the line above included;
- ``starter, back to back``: ``run_bot`` of the starter bot (``starters/python``), each
  message sent as soon as the last answer came;
- ``starter, with gaps``: the same with ``--gap-ms`` (default 2) between an answer and
  the next message, as in a match, where three other bots and the worker run between a
  bot's turns (its caches are then cold at each wake-up).

Each figure is printed beside the budget that issue 45's goal leaves a seating: 20x the
engine alone's CPU for a match (4 deals, measured on this host in the same run), over
its 16 seatings, for the worker and the containers together.

Run: ``python -m bench.sandbox.zygote_floor [--children N] [--gap-ms MS]`` (about a
minute).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import tempfile
from pathlib import Path

from bench.sandbox.throughput import CPU_SEATS, STARTER, engine_cpu
from judge import protocol
from judge.games.bigtwo import BigTwo
from sandbox.container_spec import BOT_UID, SUPERVISOR, SUPERVISOR_CAPS
from sandbox.runtimes import PYTHON

#: Issue 45's goal: a match at most this many times the engine alone's CPU.
GOAL = 20
#: A duplicate Big Two match of 4 seats, one deal each: 16 seatings.
SEATINGS = CPU_SEATS * CPU_SEATS

#: The driver, run in the image as root of the container (``python3 -c``): argv is the
#: number of children and the gap; /probe holds supervisor.py, messages and bots.
DRIVER = r"""
import gc, json, os, resource, signal, sys, time
sys.path.insert(0, "/probe")
import supervisor as S
children, gap = int(sys.argv[1]), float(sys.argv[2])
messages = open("/probe/messages", "rb").read().splitlines(keepends=True)
start = S.Start(int(sys.argv[3]))
sys.path[:] = [p for p in sys.path if p not in ("", S.CODE, "/probe")]
path = list(sys.path)
gc.disable()
for module in ("botkit", "numpy"):
    __import__(module)
S.zygote_signals()
gc.freeze()
signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # to wait4 each child
results = {}
seatings = 0
def seating(entry, pause):
    global seatings
    seatings += 1
    where = f"/seat/{seatings}"  # as run_bot opens them
    os.mkdir(where, 0o755)
    for name in ("in", "out", "err"):
        os.mkfifo(f"{where}/{name}")
        os.chmod(f"{where}/{name}", 0o666)
    S.reseed()
    began = time.process_time()
    pid = os.fork()
    if pid == 0:
        if entry is None:
            os._exit(0)
        S.run_bot(start, entry, str(seatings), dict(start.environ), path)
        os._exit(0)
    fork = time.process_time() - began
    if entry is not None:
        to_bot = os.open(f"{where}/in", os.O_WRONLY)
        from_bot = os.open(f"{where}/out", os.O_RDONLY)
        errors = os.open(f"{where}/err", os.O_RDONLY)
        pending = b""
        for message in messages if entry == "main.py" else []:
            if pause:
                time.sleep(pause)
            os.write(to_bot, message)
            if b'"act"' in message or b'"hello"' in message:
                while b"\n" not in pending:
                    pending += os.read(from_bot, 65536)
                pending = pending.split(b"\n", 1)[1]
        while os.read(errors, 65536):
            pass
        for fd in (to_bot, from_bot, errors):
            os.close(fd)
    _, status, usage = os.wait4(pid, 0)
    assert status == 0, status
    return fork, usage.ru_utime + usage.ru_stime, usage.ru_minflt
for label, entry, pause in (
    ("fork + exit", None, 0.0),
    ("set-up", "empty.py", 0.0),
    ("starter, back to back", "main.py", 0.0),
    (f"starter, with gaps", "main.py", gap),
):
    rows = [seating(entry, pause) for _ in range(children + 2)][2:]  # the first two warm
    results[label] = [sum(column) / len(rows) for column in zip(*rows)]
print(json.dumps(results))
"""


def deal_messages(seed: int) -> bytes:
    """The lines one seat of a Big Two deal receives (hello, its acts, match_over)."""
    game, rnd, lines, move = BigTwo(seed=seed, players=CPU_SEATS), random.Random(seed), [], 0
    lines.append(protocol.encode({"type": "hello", "game": "bigtwo", "bot": 0}))
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        if seat == 0:
            observation = game.observation(seat)
            message = protocol.act(
                game=0,
                move=move,
                seat=seat,
                observation=observation,
                legal=legal,
                move_s=5.0,
                bank_s=30.0,
            )
            lines.append(protocol.encode(message))
        game.apply(seat, rnd.choice(legal))
        move += 1
    lines.append(protocol.encode({"type": "match_over"}))
    return b"".join(line + b"\n" for line in lines)


def run_probe(children: int, gap_s: float) -> dict[str, list[float]]:
    """The driver's figures per kind of child: [zygote's fork s, child's CPU s, faults]."""
    with tempfile.TemporaryDirectory(prefix="zygote-floor-") as folder:
        probe = Path(folder)
        probe.chmod(0o755)
        (probe / "supervisor.py").write_text(SUPERVISOR.read_text())
        (probe / "messages").write_bytes(deal_messages(7))
        bot = probe / "bot"
        bot.mkdir(mode=0o755)
        (bot / "main.py").write_text(STARTER.read_text())
        (bot / "empty.py").write_text("")
        for path in probe.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        caps = [f"--cap-add={cap}" for cap in SUPERVISOR_CAPS]
        command = [
            "docker", "run", "--rm", "--user=0:0", "--cap-drop=ALL", *caps,
            f"--volume={probe}:/probe:ro", f"--volume={bot}:/bot:ro",
            "--tmpfs=/seat:mode=1777", PYTHON.image,
            "python3", "-c", DRIVER, str(children), str(gap_s), str(BOT_UID),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
    result: dict[str, list[float]] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=30, help="children of each kind")
    parser.add_argument("--gap-ms", type=float, default=2.0, help="between a bot's turns")
    args = parser.parse_args()
    print(f"load average at start: {load()}")
    engine_before = engine_cpu(10 * CPU_SEATS) / 10
    results = run_probe(args.children, args.gap_ms / 1000)
    engine = (engine_before + engine_cpu(10 * CPU_SEATS, 10 * CPU_SEATS) / 10) / 2
    budget = GOAL * engine / SEATINGS
    print(
        f"engine alone {1000 * engine:.1f} ms a match; issue 45's budget a seating (worker "
        f"and containers together): {1000 * budget:.2f} ms"
    )
    for label, (fork, cpu, faults) in results.items():
        print(
            f"  {label:<22} child {1000 * cpu:5.2f} ms ({faults:4.0f} page faults), zygote's "
            f"fork {1000 * fork:4.2f} ms: {(cpu + fork) / budget:4.2f}x the budget"
        )
    print(f"load average at end: {load()}")


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
