"""Fair scheduling with real workers: one user floods the judge, another is still served,
and the matches in flight follow the processes the workers announce.

Each worker announces its processes (tournaments.play.dispatch); batch work leaves one of them
idle for the interactive queue (INTERACTIVE_RESERVE). The bounds are counts of matches,
never seconds: a loaded machine makes everything slower but does not change who goes first.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, first_legal, wait_for
from tests.tournaments.test_worker import containers_of, ready
from tournaments.api import actions
from tournaments.bots.uploads import Bundle
from tournaments.competitions import competition_actions
from tournaments.models import Bot, BotVersion, Match, Tournament, bundle_code
from tournaments.play import dispatch

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")
GAME = "bigtwo"


def round_robin(owner: User, entrants: int, rounds: int = 1, delay: float = 0.0) -> Tournament:
    versions = [first_legal(GAME, f"{owner.username}-{i}", delay) for i in range(entrants)]
    Bot.objects.filter(versions__in=versions).update(owner=owner)
    return competition_actions.create_tournament(
        owner, f"{owner.username}'s cup", GAME, versions, table_size=2, rounds=rounds
    )


def start(tournament: Tournament) -> None:
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)


def over(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status == Tournament.Status.FINISHED


def started(of: Tournament) -> int:
    return Match.objects.filter(tournament=of, started_at__isnull=False).count()


def test_a_flood_does_not_hold_up_another_users_check_or_small_tournament(
    workers: Workers, settings: SettingsWrapper
) -> None:
    for name in ("one", "two"):  # two processes: one for the flood, one kept free
        workers.start(name)
    for name in ("one", "two"):
        ready(workers, name)
    wait_for(lambda: dispatch.capacity() == 2, 30, "both workers to announce themselves")
    flooder, small = User.objects.create(username="flood"), User.objects.create(username="small")
    flood = round_robin(flooder, entrants=5, rounds=3)  # 30 matches
    mine = round_robin(small, entrants=3)  # 3 matches
    start(flood)
    wait_for(lambda: started(flood) >= 2, 120, "the flood to be under way")

    # A new version's check (interactive queue): claimed while the flood plays on.
    bot = Bot.objects.create(owner=small, game=GAME, name="newcomer")
    code, digest = bundle_code({"main.py": b"print('not a bot')\n"})
    before_check = started(flood)
    with transaction.atomic():
        upload = Bundle(files={}, code=code, content_hash=digest)
        version, _ = actions.upload_version(bot, upload)

    def claimed() -> bool:
        version.refresh_from_db()
        return version.status != BotVersion.Status.PENDING

    wait_for(claimed, 120, "the check to be claimed")
    # The free process took it at once: at most the one flood match that was sent as it
    # arrived started meanwhile (FIFO: all 28 waiting would have gone first).
    assert started(flood) - before_check <= 2

    before_small = started(flood)
    start(mine)
    wait_for(lambda: over(mine), 300, "the small tournament to finish")
    # The flood's matches started while the small one ran: one per slot turn of the small
    # user at most (3), plus the one in flight when it started.
    assert started(flood) - before_small <= 4
    assert not over(flood)
    wait_for(
        lambda: BotVersion.objects.filter(
            pk=version.pk, status=BotVersion.Status.REJECTED
        ).exists(),
        300,
        "the check's verdict",
    )
    competition_actions.cancel_tournament(flood.pk)


def running(of: Tournament) -> int:
    return Match.objects.filter(tournament=of, status=Match.Status.RUNNING).count()


class Peak:
    """The most matches of a tournament seen running at once, polled as the test waits."""

    def __init__(self, of: Tournament) -> None:
        self.of = of
        self.most = 0

    def __call__(self) -> int:
        self.most = max(self.most, running(self.of))
        return self.most


def test_matches_in_flight_follow_the_workers_processes_and_leave_one_for_checks(
    workers: Workers, settings: SettingsWrapper
) -> None:
    settings.WORKER_HEARTBEAT_SECONDS = 1  # this process counts the live workers too
    workers.start_with_reaper("main", processes=3)
    ready(workers, "main")
    wait_for(lambda: dispatch.capacity() == 3, 30, "the worker to announce its 3 processes")
    owner = User.objects.create(username="organiser")
    # 36 matches of a few seconds each (0.02 s a move): long enough to watch.
    tournament = round_robin(owner, entrants=9, delay=0.02)
    start(tournament)
    peak = Peak(tournament)
    wait_for(lambda: peak() >= 2, 120, "two tournament matches at once on 3 processes")

    # A check arrives: the process the tournament left free takes it at once.
    bot = Bot.objects.create(owner=User.objects.create(username="author"), game=GAME, name="new")
    code, digest = bundle_code({"main.py": b"print('not a bot')\n"})
    with transaction.atomic():
        version, _ = actions.upload_version(bot, Bundle(files={}, code=code, content_hash=digest))

    def checked() -> bool:
        peak()
        return BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.REJECTED

    wait_for(checked, 60, "the check to be played beside the tournament")
    assert peak.most == 2, "batch work never takes the last process"

    # One more worker process, mid-tournament: three at once, no restart, no setting.
    extra = workers.start("extra")
    wait_for(lambda: peak() >= 3, 120, "a third match in flight once a worker joins")
    assert dispatch.capacity() == 4

    # Killed while it plays: its match is played again, and the flow goes back to two.
    on_extra = Match.objects.filter(worker__startswith="extra@", status=Match.Status.RUNNING)
    wait_for(on_extra.exists, 60, "the new worker to play a match")
    lost = on_extra.get()
    workers.kill(extra)
    wait_for(lambda: dispatch.capacity() == 3, 30, "the killed worker to leave the capacity")
    wait_for(lambda: over(tournament), 300, "the tournament to finish")
    lost.refresh_from_db()
    assert lost.status == Match.Status.DONE, lost.failure
    if lost.attempt == 1:  # it was being stored as the worker died: its result stands
        assert lost.worker.startswith("extra@")
    else:  # its heartbeats stopped (or its lease ran out): another process played it again
        assert "(worker extra@" in lost.failure and " lost)" in lost.failure
    assert not Match.objects.filter(tournament=tournament).exclude(status=Match.Status.DONE)


@pytest.mark.docker
def test_cancel_stops_a_running_match_and_removes_its_containers(workers: Workers) -> None:
    workers.env["JUDGE_SANDBOX"] = "docker"
    owner = User.objects.create(username="canceller")
    # About 300 moves at 0.3 s: far longer than the wait below, and than the budget's cap.
    tournament = round_robin(owner, entrants=2, delay=0.3)
    Tournament.objects.filter(pk=tournament.pk).update(games_per_pairing=10)
    workers.start("only")
    ready(workers, "only")
    start(tournament)
    match = Match.objects.get(tournament=tournament)
    wait_for(lambda: containers_of(match) != [], 120, "the match's bots to start")
    competition_actions.cancel_tournament(tournament.pk)
    wait_for(lambda: containers_of(match) == [], 120, "the cancelled match's bots to go")

    def stopped() -> bool:
        return "stopped: the match was cancelled" in Match.objects.get(pk=match.pk).failure

    wait_for(stopped, 60, "the worker to record the stop")
    match.refresh_from_db()
    assert (match.status, match.result) == (Match.Status.CANCELLED, None)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED and tournament.matches_done == 0


def test_a_match_past_its_budget_is_stopped_and_failed(
    workers: Workers, settings: SettingsWrapper
) -> None:
    settings.MATCH_BUDGET_CAP_SECONDS = 3
    workers.env["MATCH_BUDGET_CAP_SECONDS"] = "3"
    owner = User.objects.create(username="slowpoke")
    tournament = round_robin(owner, entrants=2, delay=0.3)  # far more than 3 s of moves
    workers.start("only")
    ready(workers, "only")
    start(tournament)
    wait_for(lambda: over(tournament), 120, "the slow match to be given up")
    match = Match.objects.get(tournament=tournament)
    assert match.status == Match.Status.FAILED and match.result is None
    assert "ran past its wall-clock budget of 3 s" in match.failure
    assert match.attempt == 1, "a budget overrun is not retried"
    assert not Match.objects.filter(~Q(pk=match.pk)).exists()
