"""Shares by person with real workers and the real broker: one person's three accounts
hold one process while a newcomer's check and a tournament go on; retiring stops a
running check and quick match at once; a killed worker's match leaves flight when its
heartbeats stop, long before its lease runs out. Bounds are counts and states, never
seconds (tournaments.play.shares, tournaments.play.dispatch)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import FIRST_LEGAL, Workers, first_legal, wait_for
from tests.tournaments.test_fairness import Peak, round_robin, start
from tests.tournaments.test_shares import register
from tests.tournaments.test_worker import ready
from tournaments.api import actions
from tournaments.bots.uploads import Bundle
from tournaments.competitions import competition_actions
from tournaments.models import Bot, BotVersion, Match, bundle_code
from tournaments.play import dispatch, lease, version_checks

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")
GAME = "bigtwo"
SLOW = FIRST_LEGAL % {"delay": 0.85}  # a check of it takes about 50 s


def upload(owner: User, name: str, source: str) -> BotVersion:
    bot, _ = Bot.objects.get_or_create(owner=owner, game=GAME, name=name)
    code, digest = bundle_code({"main.py": source.encode()})
    with transaction.atomic():
        version, _ = actions.upload_version(bot, Bundle(files={}, code=code, content_hash=digest))
    return version


def checking(owners: list[User]) -> int:
    return BotVersion.objects.filter(dispatch.CHECK_IN_FLIGHT, bot__owner__in=owners).count()


def test_three_accounts_of_one_person_hold_one_process_beside_a_newcomer_and_a_tournament(
    workers: Workers, settings: SettingsWrapper
) -> None:
    settings.WORKER_HEARTBEAT_SECONDS = 1
    workers.start("main", processes=3)
    ready(workers, "main")
    wait_for(lambda: dispatch.capacity() == 3, 30, "the worker to announce its 3 processes")
    organiser = User.objects.create(username="organiser")
    cup = round_robin(organiser, entrants=8, delay=0.05)  # 28 matches of a few seconds
    start(cup)
    tournament = Peak(cup)
    wait_for(lambda: tournament() >= 1, 60, "the tournament to be under way")
    # One person, three accounts from one network, each within its own quota: six slow checks.
    hostile = [register(f"hostile{n}", f"198.51.100.{n + 7}") for n in range(3)]
    flood = [
        upload(user, f"slow{i}", SLOW + f"# {user.pk}-{i}\n") for user in hostile for i in range(2)
    ]
    held = 0

    def hostile_peak() -> int:
        nonlocal held
        held = max(held, checking(hostile))
        return held

    wait_for(lambda: hostile_peak() >= 1, 60, "the flood's first check to run")
    tournament.most = 0  # from now on: does the tournament keep playing beside the flood?
    author = register("author", "192.0.2.1")
    accepted = first_legal(GAME, "authors-first")
    Bot.objects.filter(pk=accepted.bot_id).update(owner=author)
    mine = upload(author, "second", "print('not a bot')\n")

    def verdict() -> bool:
        hostile_peak()
        tournament()
        mine.refresh_from_db()
        return mine.status == BotVersion.Status.REJECTED

    wait_for(verdict, 120, "the author's check beside the flood")
    assert held == 1, "three accounts of one person: one process"
    assert tournament.most >= 1, "the tournament kept a match running"
    flooded = BotVersion.objects.filter(pk__in=[v.pk for v in flood])
    assert not flooded.exclude(status=BotVersion.Status.PENDING).exclude(
        dispatch.CHECK_IN_FLIGHT
    ), "the author's verdict came before any of the flood's"

    # Retiring the flood's bots stops the check being played at once, not after its run.
    running = flooded.filter(dispatch.CHECK_IN_FLIGHT).get()
    for bot in Bot.objects.filter(owner__in=hostile):
        actions.retire_bot(bot)

    def all_rejected() -> bool:
        return flooded.filter(status=BotVersion.Status.REJECTED).count() == len(flood)

    wait_for(all_rejected, 60, "the flood's checks to be withdrawn and stopped")
    running.refresh_from_db()
    assert running.check_report["reason"] == version_checks.STOPPED_RETIRED
    assert running.check_report["matches"] == [], "stopped in its first check match"
    competition_actions.cancel_tournament(cup.pk)


def test_retiring_stops_a_running_quick_match(workers: Workers) -> None:
    workers.start("main")
    ready(workers, "main")
    owner = User.objects.create(username="owner")
    slow = first_legal(GAME, "slow", delay=0.85)
    Bot.objects.filter(pk=slow.bot_id).update(owner=owner)
    with transaction.atomic():
        match = actions.request_quick_match(slow, [], ["random"], 10, requested_by=owner)
    playing = Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING)
    wait_for(playing.exists, 60, "the quick match to be played")
    actions.retire_version(slow)

    def stopped() -> bool:
        return "stopped: the match was cancelled" in Match.objects.get(pk=match.pk).failure

    wait_for(stopped, 60, "the worker to stop the retired bot's match")
    match.refresh_from_db()
    assert (match.status, match.result) == (Match.Status.CANCELLED, None)
    assert "a bot in it was retired" in match.failure


def test_a_killed_workers_match_leaves_flight_when_its_heartbeats_stop(
    workers: Workers, settings: SettingsWrapper
) -> None:
    settings.WORKER_HEARTBEAT_SECONDS = 1
    workers.env["MATCH_LEASE_SECONDS"] = "600"  # far beyond the wait below
    settings.MATCH_LEASE_SECONDS = 600.0
    doomed = workers.start("doomed")
    ready(workers, "doomed")
    owner = User.objects.create(username="organiser")
    cup = round_robin(owner, entrants=2, delay=0.85)  # one long match
    start(cup)
    match = Match.objects.get(tournament=cup)
    playing = Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING)
    wait_for(playing.exists, 60, "the match to be played")

    def counted() -> bool:  # the dead workers are looked at again on each call
        return Match.objects.filter(dispatch.in_flight(), pk=match.pk).exists()

    assert counted()
    workers.kill(doomed)
    wait_for(lambda: not counted(), 30, "the match to leave flight")
    match.refresh_from_db()
    assert match.lease_expires_at is not None and match.lease_expires_at > timezone.now()
    assert lease.reap_matches()["requeued"] == 1, "the reaper does not wait for the lease"
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED
    assert f"heartbeats stopped (worker {match.worker}" in match.failure
    competition_actions.cancel_tournament(cup.pk)
