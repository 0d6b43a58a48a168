"""The dispatcher's choices, step by step: tasks go to Redis (no worker takes them), and
the test plays the workers' part by marking matches done and dispatching again."""

from __future__ import annotations

import datetime as dt

import pytest
import redis
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper
from rest_framework.test import APIClient

from tests.tournaments.conftest import REDIS_URL, announce_workers, first_legal
from tournaments.api import actions
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions, time_control
from tournaments.config.celery import app as celery_app
from tournaments.models import Bot, BotVersion, Match, Tournament, Worker, bundle_code
from tournaments.play import clocks, dispatch, queued_work
from tournaments.play.version_checks import enqueue_check

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("redis_broker", "ten_processes"),
]


def round_robin(owner: User, entrants: int, rounds: int = 1) -> Tournament:
    versions = [first_legal("bigtwo", f"{owner.username}-{i}") for i in range(entrants)]
    Bot.objects.filter(versions__in=versions).update(owner=owner)
    tournament = competition_actions.create_tournament(
        owner, f"{owner.username}'s cup", "bigtwo", versions, table_size=2, rounds=rounds
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    return tournament


def in_queue(name: str) -> int:
    return int(redis.Redis.from_url(REDIS_URL).llen(name))


def in_flight() -> list[Match]:
    return list(dispatch.tournament_matches().filter(dispatch.IN_FLIGHT).order_by("sent_at", "id"))


def finish_one_and_dispatch() -> list[Match]:
    """The oldest match in flight ends; the matches the dispatcher sends in its slot."""
    oldest = in_flight()[0]
    with transaction.atomic():
        Match.objects.filter(pk=oldest.pk).update(status=Match.Status.DONE)
    return list(Match.objects.filter(pk__in=dispatch.dispatch()).select_related("tournament"))


def test_a_flood_takes_only_the_slots_and_a_small_tournament_gets_every_other_one(
    settings: SettingsWrapper,
) -> None:
    settings.TOURNAMENT_SLOTS = 2
    flooder, small = User.objects.create(username="flood"), User.objects.create(username="small")
    big = round_robin(flooder, entrants=5, rounds=3)  # 30 matches
    assert big.matches.count() == 30
    assert len(in_flight()) == 2 and in_queue("tournaments") == 2
    mine = round_robin(small, entrants=3)  # 3 matches
    assert len(in_flight()) == 2, "the slots were full: nothing more is sent"

    owners = []
    while Match.objects.filter(tournament=mine, sent_at__isnull=True).exists():
        sent = finish_one_and_dispatch()
        assert len(sent) == 1
        owners.append(sent[0].tournament.owner_id)
    # Each freed slot goes to whoever has fewer in flight: the flood's matches already in
    # flight end first, then the two alternate. FIFO would have sent 28 of the flood's.
    ahead = owners.count(flooder.pk)
    assert ahead <= 3, owners
    assert owners.count(small.pk) == 3
    assert len(in_flight()) == 2 and in_queue("tournaments") == 2 + len(owners)
    assert in_queue("interactive") == 0


def declare_queues_as_a_worker_does() -> None:
    with celery_app.connection_for_write() as connection:
        for queue in celery_app.amqp.queues.values():
            queue.bind(connection.default_channel).declare()


def test_a_quick_match_goes_to_the_interactive_queue_ahead_of_waiting_tournament_matches(
    settings: SettingsWrapper,
) -> None:
    declare_queues_as_a_worker_does()  # each message must reach its own queue only
    settings.TOURNAMENT_SLOTS = 1
    user = User.objects.create(username="solo")
    round_robin(user, entrants=4)
    version = first_legal("bigtwo", "quick")
    with transaction.atomic():
        match = actions.request_quick_match(version, [], ["random"], 1, requested_by=user)
    assert in_queue("interactive") == 1 and in_queue("tournaments") == 1
    match.refresh_from_db()
    assert match.requested_by == user and match.sent_at is not None


def test_cancel_empties_the_slots_and_resume_fills_them_again(settings: SettingsWrapper) -> None:
    settings.TOURNAMENT_SLOTS = 2
    user = User.objects.create(username="owner")
    tournament = round_robin(user, entrants=4)
    running = in_flight()[0]
    Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING, attempt=1)
    competition_actions.cancel_tournament(tournament.pk)
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    assert in_flight() == []
    competition_actions.resume_tournament(tournament.pk)
    assert len(in_flight()) == 2
    assert tournament.matches.filter(status=Match.Status.QUEUED).count() == 6


def test_the_budget_follows_the_clocks_and_is_capped(settings: SettingsWrapper) -> None:
    settings.MATCH_BUDGET_CAP_SECONDS = 300
    standard = time_control.standard_time_control()
    fast = {"startup_s": 1.0, "move_s": 0.05, "bank_s": 0.0}
    small = clocks.match_budget("bigtwo", 2, 1, False, fast)
    assert small == 1 + 80 * 0.05 * 1  # one start-up, 80 moves
    assert clocks.match_budget("bigtwo", 2, 2, True, fast) > small
    assert clocks.match_budget("bigtwo", 4, 20, True, standard) == 300
    assert clocks.match_budget("bigtwo", 2, 1, False, fast, {"deals": 10**9}) == 300
    settings.MATCH_BUDGET_CAP_SECONDS = 60
    assert clocks.match_budget("bigtwo", 4, 20, True, standard) == 60
    assert clocks.time_limits(60) == {"soft_time_limit": 90, "time_limit": 120}


def test_standard_clocks_are_the_referees_defaults() -> None:
    assert time_control.is_standard({})
    assert time_control.is_standard(time_control.standard_time_control())
    assert not time_control.is_standard({"startup_s": 10.0, "move_s": 0.05, "bank_s": 0.0})
    assert not time_control.is_standard({"move_s": 1.0})


def pending_check(owner: User, name: str) -> BotVersion:
    """A new version of a bot of ``owner``'s, waiting for its check."""
    bot = bot_actions.create_bot(owner, "bigtwo", name)
    with transaction.atomic():
        version = bot_actions.add_version(bot, *bundle_code({"main.py": name.encode()}))
        enqueue_check(version.pk)
    return version


def quick_match(owner: User, name: str) -> Match:
    version = first_legal("bigtwo", name)
    Bot.objects.filter(pk=version.bot_id).update(owner=owner)
    with transaction.atomic():
        return actions.request_quick_match(version, [], ["random"], 1, requested_by=owner)


def sent(item: Match | BotVersion) -> bool:
    item.refresh_from_db()
    return (item.sent_at if isinstance(item, Match) else item.check_sent_at) is not None


def test_one_owners_backlog_never_holds_up_anothers_first_check_or_quick_match() -> None:
    dispatch.withdraw("announced@test")
    announce_workers(3)  # the main job: 3 processes, one kept for interactive work
    assert dispatch.owner_cap(3) == 1 and dispatch.batch_limit(3) == 2
    flooder, organiser, newcomer = (User.objects.create(username=n) for n in ("f", "o", "n"))
    checks = [pending_check(flooder, f"slow-{i}") for i in range(5)]
    quicks = [quick_match(flooder, f"q-{i}") for i in range(5)]
    cup = round_robin(organiser, entrants=5)  # 10 matches
    # The flooder holds one process, the tournament one: the third stays free.
    assert [sent(c) for c in checks] == [True, False, False, False, False]
    assert not any(sent(q) for q in quicks)
    assert Match.objects.filter(tournament=cup, sent_at__isnull=False).count() == 1

    mine = quick_match(newcomer, "first")
    assert sent(mine), "the newcomer's first quick match takes the free process at once"
    second = pending_check(newcomer, "second")
    assert not sent(second), "every process is busy: it waits for the next free one"

    # The tournament's match ends: interactive work holds all it may (3 less BATCH_SHARE),
    # so the tournament's next match takes the process: batch work keeps its share.
    finish_one_and_dispatch()
    assert Match.objects.filter(tournament=cup, sent_at__isnull=False).count() == 2
    assert dispatch.tournament_matches().filter(dispatch.IN_FLIGHT).count() == 1
    # The newcomer's quick match ends: their check goes before any tournament match.
    with transaction.atomic():
        Match.objects.filter(pk=mine.pk).update(status=Match.Status.DONE)
    dispatch.dispatch()
    assert sent(second)
    assert dispatch.tournament_matches().filter(dispatch.IN_FLIGHT).count() == 1
    # The flooder's check ends: its own next item goes (oldest first), one at a time.
    with transaction.atomic():
        BotVersion.objects.filter(pk=checks[0].pk).update(status=BotVersion.Status.ACCEPTED)
    dispatch.dispatch()
    assert sent(checks[1]) and not sent(checks[2]) and not any(sent(q) for q in quicks)
    # Both newcomers' and the flooder's items end: the tournament gets its two processes.
    with transaction.atomic():
        BotVersion.objects.filter(pk__in=[second.pk, checks[1].pk]).update(
            status=BotVersion.Status.ACCEPTED
        )
        Bot.objects.filter(owner=flooder).update(retired=True)  # its backlog is withdrawn
        Match.objects.filter(requested_by=flooder).update(status=Match.Status.CANCELLED)
    dispatch.dispatch()
    assert dispatch.tournament_matches().filter(dispatch.IN_FLIGHT).count() == 2


def test_retiring_drops_queued_work_and_the_requester_cancels_a_waiting_quick_match() -> None:
    dispatch.withdraw("announced@test")  # no worker alive: everything waits
    owner, other = User.objects.create(username="owner"), User.objects.create(username="x")
    first, second, third = (quick_match(owner, name) for name in ("a", "b", "c"))
    check = pending_check(owner, "checked")
    api = APIClient()
    api.force_authenticate(other)
    assert api.post(f"/api/matches/{first.pk}/cancel/").status_code == 403
    api.force_authenticate(owner)
    answer = api.post(f"/api/matches/{first.pk}/cancel/")
    assert answer.status_code == 200 and answer.json()["status"] == "cancelled"
    assert api.post(f"/api/matches/{first.pk}/cancel/").status_code == 409

    page = Client()
    page.force_login(owner)
    assert "Cancel this quick match" in page.get(f"/matches/{second.pk}/").content.decode()
    page.post(f"/matches/{second.pk}/cancel/")
    second.refresh_from_db()
    assert second.status == Match.Status.CANCELLED
    assert "cancelled by its owner" in page.get(f"/matches/{second.pk}/").content.decode()

    # Retiring a bot takes back its check and the quick matches seating it.
    seat = third.seats.get(index=0).version
    actions.retire_version(seat)
    actions.retire_bot(check.bot)
    third.refresh_from_db()
    check.refresh_from_db()
    assert third.status == Match.Status.CANCELLED
    assert check.status == BotVersion.Status.REJECTED
    assert check.check_report["reason"] == queued_work.WITHDRAWN


def test_the_capacity_is_what_live_workers_announce(settings: SettingsWrapper) -> None:
    dispatch.withdraw("announced@test")
    assert dispatch.capacity() == 0, "no worker alive: nothing is sent"
    assert dispatch.announce("a@host", 3) and not dispatch.announce("a@host", 3)
    assert dispatch.announce("b@host", 2), "a new worker is news: the caller dispatches"
    assert dispatch.capacity() == 5 and dispatch.batch_limit(5) == 4
    assert dispatch.announce("b@host", 4), "resized"
    assert dispatch.capacity() == 7
    late = timezone.now() - dt.timedelta(seconds=3 * settings.WORKER_HEARTBEAT_SECONDS + 1)
    Worker.objects.filter(name="b@host").update(seen_at=late)
    assert dispatch.capacity() == 3, "three beats missed: gone"
    dispatch.withdraw("a@host")
    assert dispatch.capacity() == 0
