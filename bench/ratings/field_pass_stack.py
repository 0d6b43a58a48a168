"""The field pass on the production stack (issue 47): a game's field of ``--bots`` bots
seeded into the stack's own PostgreSQL, then its whole pass (``field_view.refresh``, as
the beat's task runs it) run in a worker container of the stack, against the same pass
run by this process on the same database.

``python -m bench.ratings.field_pass_stack [--bots 20000] [--baseline-bots 2500]`` brings
up a stack of its own (scripts/stack, one worker container; the images are built if
missing, a few minutes the first time), seeds one database a field (bench.ratings.
field_pass's seeding: ``--near`` and ``--far`` opponents a bot, 20,000 recent 4-seat
matches), prints each pass's wall time, CPU and peak memory in the container and here,
and their ratio, then removes the stack and its volumes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import time
from typing import Any

from bench._service import configure, scratch_database
from bench._stack import Stack
from bench.ratings.field_pass import GAME, seed

#: The pass as the beat's task runs it, in the container: its figures as one JSON line.
#: Written out (as ``here`` is) because the app image holds no bench/.
IN_CONTAINER = f"""
import json, resource, time, django
django.setup()
from tournaments.models import FieldPass
from tournaments.rating.stored import field_view
FieldPass.objects.filter(game={GAME!r}).delete()
wall, cpu = time.perf_counter(), time.process_time()
outcome = field_view.refresh({GAME!r})
print(json.dumps({{"outcome": outcome, "wall": time.perf_counter() - wall,
    "cpu": time.process_time() - cpu,
    "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def here() -> dict[str, Any]:
    """The pass in this process, on the database Django is set to now."""
    from tournaments.models import FieldPass
    from tournaments.rating.stored import field_view

    FieldPass.objects.filter(game=GAME).delete()
    wall, cpu = time.perf_counter(), time.process_time()
    outcome = field_view.refresh(GAME)
    return {
        "outcome": outcome,
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def in_container(stack: Stack, database: str) -> dict[str, Any]:
    """The pass in the stack's worker container, on ``database`` of the stack's server."""
    password = stack.settings.get("POSTGRES_PASSWORD", "judge")
    port = stack.settings["STACK_POSTGRES_PORT"]
    url = f"postgresql://judge:{password}@127.0.0.1:{port}/{database}"
    out = stack.compose(
        "exec",
        "-T",
        "-e",
        f"DATABASE_URL={url}",
        "worker",
        "python",
        "-c",
        IN_CONTAINER,
        timeout=1800,
    )
    return json.loads(out.strip().splitlines()[-1])


def line(where: str, figures: dict[str, Any]) -> str:
    return (
        f"  {where}: {figures['outcome']}, {figures['wall']:.1f} s wall, "
        f"{figures['cpu']:.1f} s CPU, peak RSS {figures['rss']:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=20_000)
    parser.add_argument("--baseline-bots", type=int, default=2_500)
    parser.add_argument("--near", type=int, default=40)
    parser.add_argument("--far", type=int, default=20)
    parser.add_argument("--matches", type=int, default=20_000)
    options = parser.parse_args()
    stack = Stack.make(f"cjfieldpass{os.getpid()}")
    print("bringing the stack up (scripts/stack up, one worker)", flush=True)
    try:
        print(f"  served after {stack.up(1):.0f} s", flush=True)
        password = stack.settings.get("POSTGRES_PASSWORD", "judge")
        port = stack.settings["STACK_POSTGRES_PORT"]
        os.environ["DATABASE_URL"] = f"postgresql://judge:{password}@127.0.0.1:{port}/judge"
        configure("bench_field_pass_stack", broker="memory://", sandbox="local")
        for bots in (options.baseline_bots, options.bots):
            name = f"field_pass_stack_{bots}"
            with scratch_database(name):
                began = time.perf_counter()
                records = seed(
                    bots, options.near, options.far, 8, options.matches, random.Random(1)
                )
                print(
                    f"{bots} bots, {records:,} records seeded in "
                    f"{time.perf_counter() - began:.0f} s; load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
                container = in_container(stack, name)
                print(line("the stack's worker container", container), flush=True)
                local = here()
                print(line("this process, same database", local), flush=True)
                ratio = container["wall"] / local["wall"]
                print(f"  container / here: wall {ratio:.2f}", flush=True)
    finally:
        print("removing the stack", flush=True)
        stack.down()


if __name__ == "__main__":
    main()
