"""A stall of the worker is the host's, never a bot's: real workers on the real broker.

The worker process playing a rated match is stopped for 15 s (SIGSTOP, then SIGCONT)
while a bot is thinking; the bot answers during the stall, and the referee, reading the
answer 15 s late, would once have faulted it ("answered after 15.003 s"). Its watchdog
saw the stall: the match is voided, played again and rated once, with no bot faulted.
"""

from __future__ import annotations

import os
import signal
import time
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
