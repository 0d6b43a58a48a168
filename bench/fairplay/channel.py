"""Issue 43's cheater with a real channel: a Big Two bot that carries its hand to the
deal's next rotation through the host's dentry cache, played on the worker's path
(``tournaments.play.runner.play``) in Docker's pool lifecycle, against the house greedy
bot, and the rotation-order audit on its results.

The bot (``CARRIER``, with a copy of the judge package and bench/fairplay/_cheaters.py in its
folder) plays bench.fairplay._cheaters.CarryingPolicy with a store that is the dentry cache: at the
end of each deal it stat()s names under the image's /usr/lib (they do not exist: each call
leaves a negative dentry) that spell its hand, 16 names a card, under a key made of the
other seat's hand; in the next rotation, in another container of the same image, it times
a stat() of every name of its own hand's key and takes the 13 cards read fastest (the
median of 16 names a card) when the 13th is under 0.9 of the others' median (measured in
the sandbox: a carried card read in 5.2-6.2 us, the rest 6.8-8.4 us; with no message the
13th fastest was 0.96-0.97 of the rest). Its honest twin is the same code with the channel off.
Each logs, per deal, whether it knew the opponent's hand and whether it was right.

Printed: messages arrived and right, the carrier's gain over its twin in standard
deviations of a deal's score, and the audit after 50, 100, 150 and 200 deals (carrier
and twin), the house bot held at 0.

Run: ``python -m bench.fairplay.channel [--matches N] [--deals D]`` (Docker).
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from bench._match_library import ROOT
from judge.rng import derive_seed
from sandbox.docker_backend import DockerBackend
from tournaments.fairplay import rotation_order
from tournaments.fairplay.rotation_order import StoredMatch
from tournaments.play import runner

CARRIER, TWIN, HOUSE = 1, 2, 3
CHECKPOINTS = (50, 100, 150, 200)

MAIN = """\
import hashlib, json, os, random, sys, time
from cheaters import CarryingPolicy

CHANNEL = %(channel)r
RANKS, SUITS = "3456789TJQKA2", "dchs"
CARDS = [r + s for r in RANKS for s in SUITS]
COPIES = 16


class DentryStore:
    \"\"\"A dict whose entries live in the host's dentry cache (negative dentries).\"\"\"

    def _names(self, key):
        base = hashlib.sha256(("|".join(sorted(key))).encode()).hexdigest()[:12]
        return {c: ["/usr/lib/.%%s%%s%%d" %% (base, c, r) for r in range(COPIES)] for c in CARDS}

    def __setitem__(self, key, value):
        if not CHANNEL:
            return
        names = self._names(key)
        for card in value:
            for name in names[card]:
                try:
                    os.stat(name)
                except OSError:
                    pass

    def get(self, key):
        if not CHANNEL:
            return None
        names = self._names(key)
        order = [(c, n) for c in CARDS for n in names[c]]
        random.shuffle(order)
        times = {c: [] for c in CARDS}
        for card, name in order:
            began = time.perf_counter_ns()
            try:
                os.stat(name)
            except OSError:
                pass
            times[card].append(time.perf_counter_ns() - began)
        typical = {c: sorted(t)[COPIES // 2] for c, t in times.items()}
        ranked = sorted(CARDS, key=typical.get)
        fast, slow = ranked[:13], ranked[13:]
        if typical[fast[-1]] > 0.9 * statistics_median([typical[c] for c in slow]):
            return None  # no message: the 13 fastest are not apart from the rest
        return fast


def statistics_median(values):
    values = sorted(values)
    return values[len(values) // 2]


policy = None
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        policy = CarryingPolicy(DentryStore(), seed=1)
        print(json.dumps({"type": "ready"}), flush=True)
    elif kind == "act":
        action = policy.act(message["observation"], message["legal"])
        print(json.dumps({"type": "action", "action": message["legal"].index(action)}), flush=True)
    elif kind == "game_over":
        seat = message["seat"]
        deals = message["revealed"].get("deals", [])
        if deals:
            theirs = sorted(deals[-1]["dealt"][1 - seat])
            known = policy.known
            right = known is not None and sorted(known) == theirs
            sys.stderr.write("DEAL %%s %%s\\n" %% (known is not None, right))
            sys.stderr.flush()
        policy.game_over(message)
    elif kind == "match_over":
        break
"""


def bot_zip(channel: bool) -> bytes:
    """The carrier's folder (or its twin's): main.py, cheaters.py, the judge package."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("main.py", MAIN % {"channel": channel})
        archive.writestr("cheaters.py", (ROOT / "bench" / "fairplay" / "_cheaters.py").read_text())
        for path in sorted((ROOT / "judge").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, str(path.relative_to(ROOT)))
    return buffer.getvalue()


def plan(code: bytes, name: str, first: bool, seed: int, deals: int) -> runner.MatchPlan:
    mine = runner.SeatPlan(name=name, content_hash=name, code=code)
    house = runner.SeatPlan(name="house:greedy", content_hash="", house_policy="greedy")
    return runner.MatchPlan(
        match_id=seed,
        game="bigtwo",
        variant="",
        options={},
        seed=seed,
        games=deals,
        duplicate=True,
        time_control={"startup_s": 30.0, "move_s": 5.0, "bank_s": 60.0},
        limits={},
        seats=[mine, house] if first else [house, mine],
        instance="bench-fairplay-channel",
    )


def played(outcome: dict[str, Any], version: int, first: bool, number: int) -> StoredMatch:
    versions = (version, HOUSE) if first else (HOUSE, version)
    return StoredMatch(number, versions, True, outcome["games"], outcome["faults"])


def log_counts(outcome: dict[str, Any], first: bool) -> tuple[int, int, int]:
    log = outcome["logs"][0 if first else 1]
    deals = [line.split() for line in log.splitlines() if line.startswith("DEAL ")]
    return len(deals), sum(d[1] == "True" for d in deals), sum(d[2] == "True" for d in deals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="matches of each bot (40)")
    parser.add_argument("--deals", type=int, default=5, help="deals a match (5)")
    parser.add_argument("--seed", type=int, default=43)
    args = parser.parse_args()
    began = time.perf_counter()
    codes = {CARRIER: bot_zip(True), TWIN: bot_zip(False)}
    stored: dict[int, list[StoredMatch]] = {CARRIER: [], TWIN: []}
    seen = {CARRIER: [0, 0, 0], TWIN: [0, 0, 0]}
    with tempfile.TemporaryDirectory(prefix="bench-fairplay-channel-") as folder:
        Path(folder).chmod(0o711)  # reachable by a remapping engine (docs/deploy.md)
        docker = DockerBackend(pipe_root=Path(folder) / "pipes")
        try:
            for number in range(args.matches):
                seed = derive_seed(args.seed, "match", number)
                first = number % 2 == 0
                for version in (CARRIER, TWIN):
                    match = plan(codes[version], f"v{version}", first, seed, args.deals)
                    outcome, _ = runner.play(match, lambda: docker, lifecycle="pool")
                    stored[version].append(played(outcome, version, first, number))
                    for k, n in enumerate(log_counts(outcome, first)):
                        seen[version][k] += n
                if number % 10 == 9:
                    print(f"{number + 1} matches of each ({time.perf_counter() - began:.0f} s)")
        finally:
            docker.pool.close()
    deals, knew, right = seen[CARRIER]
    print(
        f"carrier: {deals} deal ends logged; knew the opponent's hand in {knew} "
        f"(right in {right}); twin knew {seen[TWIN][1]}"
    )
    report(stored, args.deals)
    print(f"took {time.perf_counter() - began:.0f} s")


def report(stored: dict[int, list[StoredMatch]], deals: int) -> None:
    gains, firsts = [], []
    for cheat, twin in zip(stored[CARRIER], stored[TWIN], strict=True):
        seat = cheat.versions.index(CARRIER)
        for a, b in zip(
            rotation_order.later_minus_first(cheat),
            rotation_order.later_minus_first(twin),
            strict=False,
        ):
            gains.append(a[seat] - b[seat])
        for game in twin.games[:deals]:
            firsts.append(rotation_order.scores_by_bot(game, 2)[seat])
    gain, spread = statistics.mean(gains), statistics.stdev(firsts)
    print(
        f"gain over the twin {gain:+.2f} points a deal = {gain / spread:.2f} standard "
        f"deviations of a deal's score ({spread:.2f}), over {len(gains)} deals"
    )
    for version, label in ((CARRIER, "carrier"), (TWIN, "twin")):
        cells = []
        for checkpoint in CHECKPOINTS:
            matches = stored[version][: max(1, checkpoint // deals)]
            found = rotation_order.audit(matches, honest={HOUSE}).get(version)
            cells.append(
                f"{checkpoint} deals: "
                + ("untested" if found is None else f"t {found.t:.1f} flagged {found.flagged}")
            )
        print(f"{label}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
