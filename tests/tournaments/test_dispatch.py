"""The dispatcher's choices, step by step: tasks go to Redis (no worker takes them), and
the test plays the workers' part by marking matches done and dispatching again."""

from __future__ import annotations

import pytest
import redis
from django.contrib.auth.models import User
from django.db import transaction
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import REDIS_URL, first_legal
from tournaments import clocks, dispatch, services
from tournaments.api import actions
from tournaments.celery import app as celery_app
from tournaments.models import Bot, Match, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("redis_broker")]


def round_robin(owner: User, entrants: int, rounds: int = 1) -> Tournament:
    versions = [first_legal("bigtwo", f"{owner.username}-{i}") for i in range(entrants)]
    Bot.objects.filter(versions__in=versions).update(owner=owner)
    tournament = services.create_tournament(
        owner, f"{owner.username}'s cup", "bigtwo", versions, table_size=2, rounds=rounds
    )
    with transaction.atomic():
        services.start_tournament(tournament.pk)
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


def test_a_quick_match_goes_straight_to_the_interactive_queue(settings: SettingsWrapper) -> None:
    declare_queues_as_a_worker_does()  # each message must reach its own queue only
    settings.TOURNAMENT_SLOTS = 1
    user = User.objects.create(username="solo")
    round_robin(user, entrants=4)
    version = first_legal("bigtwo", "quick")
    with transaction.atomic():
        match = actions.request_quick_match(version, [], ["random"], 1, requested_by=user)
    assert in_queue("interactive") == 1 and in_queue("tournaments") == 1
    match.refresh_from_db()
    assert match.requested_by == user and match.sent_at is None


def test_cancel_empties_the_slots_and_resume_fills_them_again(settings: SettingsWrapper) -> None:
    settings.TOURNAMENT_SLOTS = 2
    user = User.objects.create(username="owner")
    tournament = round_robin(user, entrants=4)
    running = in_flight()[0]
    Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING, attempt=1)
    services.cancel_tournament(tournament.pk)
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    assert in_flight() == []
    services.resume_tournament(tournament.pk)
    assert len(in_flight()) == 2
    assert tournament.matches.filter(status=Match.Status.QUEUED).count() == 6


def test_the_budget_follows_the_clocks_and_is_capped(settings: SettingsWrapper) -> None:
    settings.MATCH_BUDGET_CAP_SECONDS = 300
    standard = clocks.standard_time_control()
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
    assert clocks.is_standard({})
    assert clocks.is_standard(clocks.standard_time_control())
    assert not clocks.is_standard({"startup_s": 10.0, "move_s": 0.05, "bank_s": 0.0})
    assert not clocks.is_standard({"move_s": 1.0})
