"""Shares by person (tournaments.play.shares, tournaments.guard.addresses), step by step: tasks
go to Redis (no worker takes them) and the test plays the workers' part, as in
test_dispatch. The same rules with real workers: test_fairness."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from pytest_django.fixtures import Settings as SettingsWrapper
from rest_framework.test import APIClient

from tests.tournaments.conftest import announce_workers
from tests.tournaments.test_dispatch import pending_check, quick_match, round_robin, sent
from tournaments.guard.addresses import network_of
from tournaments.models import AccountAddress, BotVersion, Match
from tournaments.play import dispatch, shares

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("redis_broker")]
PASSWORD = "a long enough password 42"


@pytest.fixture(autouse=True)
def announced_workers_stay(settings: SettingsWrapper) -> None:
    """The workers these tests announce stay alive however slow a loaded machine runs them
    (the live window is three beats)."""
    settings.WORKER_HEARTBEAT_SECONDS = 3600


def test_an_address_is_cut_to_the_network_one_subscriber_holds() -> None:
    assert network_of("198.51.100.7") == network_of("198.51.100.250") == "198.51.100.0/24"
    assert network_of("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:2:bbbb::9") == network_of("2001:db8:1:2:aaaa::1")
    assert network_of("::ffff:198.51.100.9") == "198.51.100.0/24", "IPv4 in IPv6: its /24"
    assert network_of(None) == network_of("not an address") == ""


def register(name: str, address: str) -> User:
    api = APIClient()
    answer = api.post(
        "/api/register/", {"username": name, "password": PASSWORD}, format="json",
        REMOTE_ADDR=address,
    )  # fmt: skip
    assert answer.status_code == 201, answer.content
    return User.objects.get(username=name)


def test_accounts_registered_or_acting_from_one_network_are_one_person() -> None:
    one, two = register("hostile1", "198.51.100.7"), register("hostile2", "198.51.100.8")
    three = register("hostile3", "203.0.113.5")  # registered elsewhere...
    api = APIClient()
    api.force_authenticate(three)
    made = api.post("/api/bots/", {"game": "bigtwo", "name": "slow"}, REMOTE_ADDR="198.51.100.9")
    assert made.status_code == 201, made.content  # ...acts from the same network
    other = register("someone", "192.0.2.1")
    found = shares.persons([one.pk, two.pk, three.pk, other.pk])
    assert found[one.pk] == found[two.pk] == found[three.pk] != found[other.pk]
    assert AccountAddress.objects.filter(user=three).count() == 2
    assert shares.newcomers([one.pk, other.pk]) == {one.pk, other.pk}, "no accepted bot yet"


def test_three_accounts_of_one_person_get_one_share_and_batch_keeps_its_own() -> None:
    announce_workers(3)  # the main job: 3 processes
    hostile = [register(f"h{n}", f"198.51.100.{n}") for n in range(3)]
    floods = [pending_check(user, f"slow-{user.pk}-{i}") for user in hostile for i in range(3)]
    organiser = User.objects.create(username="organiser")
    cup = round_robin(organiser, entrants=4)
    # One person, one process (their accounts are newcomers, in the pool).
    assert sum(sent(check) for check in floods) == 1
    assert Match.objects.filter(tournament=cup, sent_at__isnull=False).count() == 1
    # Someone else's work takes the third process at once.
    author = register("author", "192.0.2.1")
    played = quick_match(author, "accepted")  # an accepted bot: not a newcomer
    assert sent(played)
    with transaction.atomic():
        Match.objects.filter(pk=played.pk).update(status="done")
    check = pending_check(author, "new-version")
    assert sent(check)
    # Interactive work now holds all it may: the tournament's next match still goes.
    with transaction.atomic():
        Match.objects.filter(tournament=cup, sent_at__isnull=False).update(status="done")
    dispatch.dispatch()
    assert dispatch.tournament_matches().filter(dispatch.IN_FLIGHT).count() == 1
    assert sum(sent(check) for check in floods) == 1


def test_newcomers_from_many_networks_share_one_pool_in_turn() -> None:
    announce_workers(3)  # nothing else waits: interactive work may hold all 3
    hostile = [register(f"h{n}", f"198.51.100.{n}") for n in range(3)]
    floods = [pending_check(user, f"slow-{user.pk}-{i}") for user in hostile for i in range(3)]
    first = next(check for check in floods if sent(check))
    newcomer = register("newcomer", "192.0.2.1")
    mine = pending_check(newcomer, "first-bot")
    assert sent(mine), "one new person never fills the pool (a person's cap + 1)"
    third = pending_check(register("third", "203.0.113.1"), "another-first-bot")
    assert not sent(third), "the pool is full though a process is free"
    author = register("author", "100.64.0.1")
    played = quick_match(author, "accepted")
    assert sent(played), "a person with an accepted bot takes the free process"
    with transaction.atomic():  # the hostile person's check ends after minutes on a process
        BotVersion.objects.filter(pk=first.pk).update(
            status=BotVersion.Status.REJECTED, check_report={"seconds": 240.0}
        )
    dispatch.dispatch()
    assert sent(third), "the person who used least goes next, not the flood's next check"
    assert sum(sent(check) for check in floods) == 1


def test_a_quick_match_asked_right_after_ones_upload_does_not_wait_for_its_check() -> None:
    announce_workers(3)
    organiser, flooder = User.objects.create(username="o"), User.objects.create(username="f")
    quick_match(flooder, "flooders")  # the flooder has an accepted bot
    with transaction.atomic():
        Match.objects.filter(requested_by=flooder).update(status="done")
    floods = [pending_check(flooder, f"slow-{i}") for i in range(3)]
    assert [sent(check) for check in floods] == [True, False, False]
    cup = round_robin(organiser, entrants=4)  # batch work: it keeps one process
    assert Match.objects.filter(tournament=cup, sent_at__isnull=False).count() == 1
    author = User.objects.create(username="author")
    check = pending_check(author, "upload")
    mine = quick_match(author, "seat")
    assert sent(check) and not sent(mine), "interactive work holds all it may"
    with transaction.atomic():
        BotVersion.objects.filter(pk=floods[0].pk).update(
            status=BotVersion.Status.ACCEPTED, check_report={"seconds": 180.0}
        )
    dispatch.dispatch()
    check.refresh_from_db()
    assert check.status == BotVersion.Status.PENDING, "its own check still runs"
    assert sent(mine), "one of each: the quick match goes beside it, ahead of the flood"
    assert not sent(floods[1])
