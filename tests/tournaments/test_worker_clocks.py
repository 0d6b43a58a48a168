"""Bots' clocks measure the bot, not the host: real workers on the real broker.

- The worker process playing a rated match is stopped for 15 s (SIGSTOP, then SIGCONT)
  while a bot is thinking; the bot answers during the stall, and the referee, reading the
  answer 15 s late, would once have faulted it ("answered after 15.003 s"). Its watchdog
  saw the stall: the match is voided, played again and rated once, with no bot faulted.
- A bot that computes past its CPU budget is faulted while other processes load the CPU
  (Docker: its container's cgroup counts its CPU seconds).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.test import Client

from tests.tournaments.conftest import Workers, first_legal, uploaded, wait_for
from tests.tournaments.test_worker import finished, ready, start
from tournaments.competitions import competition_actions
from tournaments.models import Match, Rating, RatingHistory

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

#: At its first move ever (a marker file says it came), the bot says so and holds its
#: answer until the test lets it go (a second file): the test then knows the referee is
#: waiting for this answer. After that it plays its first legal action at once.
HOLDS_FIRST_MOVE = """\
import json, os, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        if not os.path.exists(%(marker)r):
            open(%(marker)r, "w").close()
            while not os.path.exists(%(release)r):
                time.sleep(0.05)
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        break
"""

#: The stall, as the issue measured it.
STALL_S = 15.0


def worker_pid(match: Match) -> int:
    """The pool process playing ``match`` (its holder is "name@host:pid")."""
    match.refresh_from_db()
    return int(match.worker.rsplit(":", 1)[1])


def test_a_15_s_stop_of_the_worker_mid_match_voids_and_replays_it_and_faults_no_bot(
    workers: Workers,
) -> None:
    workers.env["MATCH_LEASE_SECONDS"] = "60"  # the lease outlives the stall
    workers.env["MATCH_VOID_RETRY_SECONDS"] = "1"
    folder: Path = workers.folder
    marker, release = folder / "thinking", folder / "release"
    holder = uploaded(
        "bigtwo", "holder", HOLDS_FIRST_MOVE % {"marker": str(marker), "release": str(release)}
    )
    entrants = [holder, first_legal("bigtwo", "steady")]
    # Every clock of a bot (its wall clock too) is well under the stall.
    clocks = {"startup_s": 10.0, "move_s": 1.0, "bank_s": 2.0}
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", entrants, table_size=2, games_per_pairing=1, time_control=clocks
    )
    assert tournament.rated
    workers.start_with_reaper("solo")
    ready(workers, "solo")
    start(tournament)
    wait_for(marker.exists, 120, "the holder to be asked for its first move")
    match = Match.objects.get(tournament=tournament)
    pid = worker_pid(match)

    os.kill(pid, signal.SIGSTOP)
    try:
        release.touch()  # the bot answers during the stall
        time.sleep(STALL_S)  # the scenario itself, not a wait for something to happen
    finally:
        os.kill(pid, signal.SIGCONT)

    wait_for(lambda: finished(tournament), 120, "the match to be voided and played again")
    match.refresh_from_db()
    assert (match.status, match.attempt) == (Match.Status.DONE, 2)
    assert "attempt 1: voided: a bot's clock ran out" in match.failure
    assert "the worker was stalled for" in match.failure
    assert not match.faults, "no bot is faulted for the worker's stall"
    assert RatingHistory.objects.filter(match=match).count() == 2  # rated once, by the replay
    assert sorted(Rating.objects.values_list("matches", flat=True)) == [1, 1]
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "the worker was stalled for" in page
    [note] = Client().get(f"/api/matches/{match.pk}/").json()["notes"]
    assert note.startswith("voided: a bot's clock ran out (answered after")
    assert "the worker was stalled for" in note and "solo@" not in note


#: Computes without end at every move (it never answers in time, whatever the clock).
BURNER = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        while True:
            pass
"""


@contextmanager
def cpu_load(processes: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``processes`` spinning Python processes loading the host's CPU, ended by PID."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)
    ]
    try:
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait(timeout=30)


def cpu_seconds_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.docker
def test_a_bot_over_its_cpu_budget_is_faulted_while_other_processes_load_the_cpu(
    workers: Workers,
) -> None:
    workers.env["JUDGE_SANDBOX"] = "docker"
    entrants = [uploaded("bigtwo", "burner", BURNER), first_legal("bigtwo", "steady")]
    # A CPU budget of 3 s (0.5 s a move and a 2.5 s bank), a wall clock of 9 s behind it.
    clocks = {"startup_s": 10.0, "move_s": 0.5, "bank_s": 2.5}
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", entrants, table_size=2, games_per_pairing=1, time_control=clocks
    )
    workers.start("solo")
    ready(workers, "solo")
    with cpu_load(2) as spinners:
        start(tournament)
        wait_for(lambda: finished(tournament), 180, "the match to be played")
        assert all(cpu_seconds_of(s.pid) > 0.5 for s in spinners), "the host was loaded"
    match = Match.objects.get(tournament=tournament)
    assert (match.status, match.attempt) == (Match.Status.DONE, 1), match.failure
    [fault] = match.faults
    burner = [v.bot.name for v in match.seat_versions()].index("burner")
    assert (fault["bot"], fault["kind"]) == (burner, "timeout")
    assert "s of CPU without answering, past the move limit and bank" in fault["reason"]
    used = float(fault["reason"].split("used ")[1].split(" s")[0])
    assert 3.0 < used < 4.5  # stopped within half of what was left of its budget, or 1 s
    assert RatingHistory.objects.filter(match=match).count() == 2  # rated: the bot's fault
