"""Fifteen Thirty-Five duplicate deals: today's engine and house bots beside a commit's.

A deal is what ``bench._engine_results`` plays for its Fifteen Thirty-Five 6p library: one
duplicate deal of six mixed house bots (greedy's move with probability q, random's
otherwise), six games of six seats through the in-process referee. The same deals (same
tables, same seeds) are played by today's code and by ``--against`` (c808be8 by default,
the code before the observation's deep copy and greedy's card-by-card expected gap were
cut), each side in its own process run from its own tree (the commit's ``judge/`` and
``bench/`` taken out of git into a temporary folder). The sides alternate for ``--rounds``
rounds, so that load from elsewhere on the machine falls on both alike; each side's CPU
seconds per deal are summed over the rounds, and each round's results must be identical
on both sides (a hash of every stored result), or the bench says where they part.

Run: ``python -m bench.engines.fifteen35_deals [--against COMMIT] [--rounds R] [--deals K]``
(5 rounds of 8 deals: about a minute at load 2).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench._match_library import ROOT

#: Played in each side's process, from its own tree: deals ``start`` to ``start + count``.
SIDE = """
import hashlib, json, sys, time
from bench._engine_results import FIELDS, play_deal
field = FIELDS[("fifteen35", 6)]
tables = [(0, 1, 2, 3, 4, 5), (6, 7, 8, 9, 10, 11), (0, 2, 4, 6, 8, 10), (1, 3, 5, 7, 9, 11)]
start, count = int(sys.argv[1]), int(sys.argv[2])
began = time.process_time()
deals = [play_deal(field, tables[i % len(tables)], 1000 + i) for i in range(start, start + count)]
spent = time.process_time() - began
text = json.dumps(deals, sort_keys=True).encode()
print(json.dumps({"cpu": spent, "digest": hashlib.sha256(text).hexdigest()}))
"""


@contextmanager
def tree_of(commit: str) -> Iterator[Path]:
    """``judge/`` and ``bench/`` of ``commit`` in a temporary folder, removed at the end."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit, "judge", "bench"],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryDirectory(prefix="bench-f35-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        yield Path(folder)


def play(tree: Path, start: int, count: int) -> dict[str, object]:
    """Deals ``start`` .. ``start + count`` played from ``tree``: CPU seconds and a hash."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", SIDE, str(start), str(count)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    found: dict[str, object] = json.loads(done.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="c808be8", help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deals", type=int, default=8, help="deals per side a round")
    args = parser.parse_args()
    cpu = {"then": 0.0, "today": 0.0}
    with tree_of(args.against) as then:
        sides = {"then": then, "today": ROOT}
        for round_no in range(args.rounds):
            start = round_no * args.deals
            order = ["then", "today"] if round_no % 2 == 0 else ["today", "then"]
            found = {side: play(sides[side], start, args.deals) for side in order}
            for side in order:
                cpu[side] += float(str(found[side]["cpu"]))
            same = found["then"]["digest"] == found["today"]["digest"]
            print(
                f"round {round_no + 1}: deals {start}-{start + args.deals - 1}: "
                f"{args.against} {found['then']['cpu']:.2f} s, today "
                f"{found['today']['cpu']:.2f} s of CPU; results "
                f"{'identical' if same else 'DIFFERENT'}",
                flush=True,
            )
            if not same:
                raise SystemExit(f"the results of deals {start}-{start + args.deals - 1} differ")
    deals = args.rounds * args.deals
    print(
        f"{deals} deals a side: {args.against} {cpu['then'] / deals * 1000:.0f} ms of CPU a deal, "
        f"today {cpu['today'] / deals * 1000:.0f} ms: {cpu['then'] / cpu['today']:.2f} x as fast, "
        f"every result identical (load {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
