"""Real Celery worker processes on Redis and PostgreSQL: every match played exactly once.

Each test starts its own workers (``celery -A tournaments worker``, prefetch 1) against
the test database, and stops them by PID; tasks go through Redis db 15.
"""

from __future__ import annotations

import signal

import pytest
from django.db import transaction
from django.test import Client

from judge.games import replay
from sandbox import docker_backend
from tests.tournaments.conftest import FIRST_LEGAL, Workers, first_legal, uploaded, wait_for
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.competitions.standings import tournament_table
from tournaments.models import Match, Rating, RatingHistory, Tournament
from tournaments.play import replay_store, tasks
from tournaments.play.instance import judge_instance

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")
GAME = "bigtwo"


def containers_of(match: Match) -> list[str]:
    """The Docker containers still there for ``match`` (the sandbox labels each one).

    One listing call: other tests' containers may vanish meanwhile, which the SDK's
    per-container lookups would trip over.
    """
    listed = docker_backend.connect().api.containers(
        all=True, filters={"label": docker_backend.LABEL}
    )
    prefix = f"{judge_instance()}-match-{match.pk}-"  # the workers share this test database
    return [
        c["Id"]
        for c in listed
        if c["Labels"].get(docker_backend.MATCH_LABEL, "").startswith(prefix)
    ]


def ready(workers: Workers, name: str) -> None:
    log = workers.folder / f"worker-{name}.log"
    wait_for(lambda: b" ready." in log.read_bytes(), 60, f"worker {name} to start")


def start(tournament: Tournament) -> None:
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)


def finished(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status == Tournament.Status.FINISHED


def all_timed(tournament: Tournament) -> bool:
    """Whether every match of ``tournament`` has its database timing written."""
    timings = Match.objects.filter(tournament=tournament).values_list("timings", flat=True)
    return all("database" in (figures or {}) for figures in timings)


@pytest.mark.docker
def test_a_worker_plays_every_match_of_a_round_robin_in_docker_and_each_replay_verifies(
    workers: Workers,
) -> None:
    entrants = [
        first_legal("oceans11", "first"),
        first_legal("oceans11", "second", delay=0.001),
        bot_actions.house_version("oceans11", "random"),
    ]
    tournament = competition_actions.create_tournament(
        None, "cup", "oceans11", entrants, games_per_pairing=2, seed=1
    )
    workers.env["JUDGE_SANDBOX"] = "docker"
    workers.start("solo")
    start(tournament)
    wait_for(lambda: finished(tournament), 90, "the round robin to finish")
    # The storing time is written just after the result's transaction: wait for it too.
    wait_for(lambda: all_timed(tournament), 30, "every match's database timing")

    matches = list(Match.objects.filter(tournament=tournament))
    assert [(m.status, m.attempt) for m in matches] == [(Match.Status.DONE, 1)] * 3
    for match in matches:
        assert match.worker.startswith("solo@")
        assert set(match.timings) == {"sandbox_start", "referee", "database"}
        for played in replay_store.load(match.replay)["games"]:
            assert replay(played["record"]).result().to_json() == played["result"]
    table = tournament_table(tournament)
    assert sorted(row.participant for row in table.rows) == sorted(v.pk for v in entrants)
    assert sum(row.points for row in table.rows) == 3
    assert all(row.elo_low < row.elo < row.elo_high for row in table.rows)
    for a in entrants:
        assert {b for b in table.head_to_head[a.pk]} == {b.pk for b in entrants} - {a.pk}
    assert RatingHistory.objects.count() == 6
    assert sorted(Rating.objects.values_list("matches", flat=True)) == [2, 2, 2]
    assert all(containers_of(match) == [] for match in matches)


@pytest.mark.docker
def test_a_match_whose_worker_is_killed_is_finished_by_another_and_counted_once(
    workers: Workers,
) -> None:
    workers.env["JUDGE_SANDBOX"] = "docker"
    entrants = [first_legal(GAME, "slow", delay=0.05), first_legal(GAME, "steady")]
    tournament = competition_actions.create_tournament(
        None, "cup", GAME, entrants, table_size=2, games_per_pairing=3, seed=2
    )
    doomed = workers.start("doomed")
    ready(workers, "doomed")
    start(tournament)
    match = Match.objects.get(tournament=tournament)

    def running() -> bool:
        match.refresh_from_db()
        return match.status == Match.Status.RUNNING

    wait_for(running, 30, "the first worker to claim the match")
    # Its bots started (not a fixed sleep: a loaded machine starts containers slowly).
    wait_for(lambda: containers_of(match) != [], 120, "the first worker's bots to start")
    workers.kill(doomed, signal.SIGKILL)
    match.refresh_from_db()
    assert (match.status, match.attempt, match.result) == (Match.Status.RUNNING, 1, None)
    assert containers_of(match) != []  # the dead worker's bots are still there

    workers.start_with_reaper("rescuer")
    wait_for(lambda: finished(tournament), 90, "another worker to finish the match")
    match.refresh_from_db()
    assert (match.status, match.attempt) == (Match.Status.DONE, 2)
    assert "attempt 1: lease expired" in match.failure
    assert match.worker.startswith("rescuer@")
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("matches", flat=True)) == [1, 1]
    assert tournament.matches_done == 1
    assert containers_of(match) == []  # removed when the rescuer started, or when it finished


def test_two_workers_given_the_same_match_twice_play_it_once(workers: Workers) -> None:
    entrants = [first_legal(GAME, "a", delay=0.01), first_legal(GAME, "b")]
    tournament = competition_actions.create_tournament(
        None, "cup", GAME, entrants, table_size=2, games_per_pairing=2, seed=3
    )
    for name in ("left", "right"):
        workers.start(name)
    for name in ("left", "right"):
        ready(workers, name)
    start(tournament)  # one delivery...
    match = Match.objects.get(tournament=tournament)
    tasks.play_match.delay(match.pk)  # ...and a second, raced by the other worker
    wait_for(lambda: finished(tournament), 60, "the match to be stored")

    def verdicts() -> list[str]:
        logs = [(workers.folder / f"worker-{n}.log").read_text() for n in ("left", "right")]
        return sorted(
            verdict for log in logs for verdict in ("'stored'", "'not claimed'") if verdict in log
        )

    wait_for(lambda: len(verdicts()) == 2, 120, "both deliveries to be handled")
    assert verdicts() == ["'not claimed'", "'stored'"]
    match.refresh_from_db()
    assert (match.status, match.attempt) == (Match.Status.DONE, 1)
    assert RatingHistory.objects.filter(match=match).count() == 2


#: Starts slowly the first time only (a marker file says it started once): as a bot on a
#: starved host would, then plays its first legal action.
SLOW_FIRST_START = """\
import os, time
if not os.path.exists(%(marker)r):
    open(%(marker)r, "w").close()
    time.sleep(%(sleep)s)
"""


def test_a_match_whose_bots_all_time_out_at_start_up_is_voided_replayed_and_rated_once(
    workers: Workers,
) -> None:
    workers.env["MATCH_VOID_RETRY_SECONDS"] = "1"
    # Every bot of the match is slow to start the first time: the host, not the bots.
    entrants = [
        uploaded(
            GAME,
            name,
            SLOW_FIRST_START % {"marker": str(workers.folder / name), "sleep": 6}
            + FIRST_LEGAL % {"delay": 0},
        )
        for name in ("starved-a", "starved-b")
    ]
    # Start-up: 1 s of CPU, not 10, and 3 s of wall clock behind it (judge.bot_clock): the
    # bots' 6 s of waiting costs no CPU but runs past the wall clock, as a starved host's
    # bots would.
    clocks = {"startup_s": 1.0, "move_s": 1.0, "bank_s": 10.0}
    tournament = competition_actions.create_tournament(
        None, "cup", GAME, entrants, table_size=2, games_per_pairing=1, time_control=clocks
    )
    assert tournament.rated
    workers.start_with_reaper("solo")
    ready(workers, "solo")
    start(tournament)
    wait_for(lambda: finished(tournament), 120, "the match to be voided and played again")
    match = Match.objects.get(tournament=tournament)
    assert (match.status, match.attempt) == (Match.Status.DONE, 2)
    assert "attempt 1: voided: every bot timed out at start-up" in match.failure
    assert not match.faults, "the second attempt's start was on time"
    # Rated once: by the replay, never by the voided attempt.
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("matches", flat=True)) == [1, 1]
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "voided: every bot timed out at start-up" in page
