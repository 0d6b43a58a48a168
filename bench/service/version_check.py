"""What the check's further matches cost (issue 46): a version's check per game, with them
and without (the first round only, as the check was before: the baseline, in the same
run), interleaved, for a bot that answers at once and one that thinks ``--think`` seconds
a move. Printed per game: the median wall seconds of a check, this process's CPU seconds
(the referee, the house bots, counting the situations), the bot's decisions, the
situation kinds met fewer than 3 times, and the ratio with/without. The load average is
printed before and after: the host is shared.

Run: ``python -m bench.service.version_check [--sandbox docker|local] [--rounds N]
[--think S]`` (about five minutes in Docker; needs the Docker engine and the bot image).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from bench._service import configure

#: A bot that plays its last legal action after ``think`` seconds of computing.
BOT = """\
import time, botkit

def act(observation, legal):
    end = time.process_time() + %(think)s
    while time.process_time() < end:
        pass
    return len(legal) - 1

botkit.run(act)
"""


def one_check(game: str, code: bytes, backend: Any, further: bool) -> dict[str, float]:
    """Run one check; its wall and CPU seconds, decisions and short situation kinds."""
    from django.conf import settings

    from tournaments.play import version_checks

    saved = settings.CHECK_FURTHER_SHARE
    settings.CHECK_FURTHER_SHARE = saved if further else 0.0
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        report = version_checks.run_check(game, code, 1, lambda: backend)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        settings.CHECK_FURTHER_SHARE = saved
    assert report["passed"], report["reason"]
    decisions = sum(
        1
        for played in report["matches"]
        for game_played in played["record"]["games"]
        for seat, _ in game_played["record"]["actions"]
        if seat == played["seat"]
    )
    short = sum(1 for kind in report["situations"] if not kind["enough"])
    return {"wall": wall, "cpu": cpu, "decisions": decisions, "short": short}


def median(samples: list[dict[str, float]], key: str) -> float:
    return statistics.median(sample[key] for sample in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default="docker")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--think", type=float, default=0.05)
    parser.add_argument("--games", default="bigtwo,fifteen35,oceans11")
    args = parser.parse_args()
    configure("version_check", "memory://", args.sandbox)  # no database, no broker used
    from django.conf import settings

    from tournaments.models import bundle_code
    from tournaments.play import check_coverage, runner

    backend = runner.make_backend(args.sandbox)
    print(f"load before: {os.getloadavg()[0]:.1f} (1 min average, 2 cores)")
    print(
        f"budget: further matches up to {settings.CHECK_FURTHER_SHARE:g}x the first round "
        f"(at most {check_coverage.EXTRA_MAX_S:g} s), {check_coverage.EXTRA_GAMES} games each"
    )
    for think in (0.0, args.think):
        code, _ = bundle_code({"main.py": (BOT % {"think": think}).encode()})
        for game in args.games.split(","):
            runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
            for _ in range(args.rounds):
                for further in (False, True):
                    runs[further].append(one_check(game, code, backend, further))
            before, after = runs[False], runs[True]
            print(
                f"{game:10} think {think:4.2f} s | first round only: "
                f"{median(before, 'wall'):6.1f} s wall {median(before, 'cpu'):5.2f} s cpu "
                f"{median(before, 'decisions'):5.0f} decisions {median(before, 'short'):2.0f} "
                f"short | with further: {median(after, 'wall'):6.1f} s wall "
                f"{median(after, 'cpu'):5.2f} s cpu {median(after, 'decisions'):5.0f} decisions "
                f"{median(after, 'short'):2.0f} short | ratio "
                f"{median(after, 'wall') / median(before, 'wall'):4.2f}x",
                flush=True,
            )
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
