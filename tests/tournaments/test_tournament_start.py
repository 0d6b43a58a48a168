"""Issue 42, item 1: a tournament's start does no schedule work in the request. The API
answers 202 with the tournament scheduling and nothing written; a real worker's task works
the schedule out and writes it; a start refused by a quota creates nothing and sends no
task; a cancel while the schedule is written stops the writing."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, wait_for
from tests.tournaments.test_dispatch import in_queue
from tests.tournaments.test_quotas import entrants, new_tournament, refused, signed_in
from tournaments.competitions import competition_actions
from tournaments.models import Match, Seat, Tournament

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("local_sandbox"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def test_the_start_answers_at_once_and_a_worker_writes_the_schedule(workers: Workers) -> None:
    owner = User.objects.create(username="host")
    client = signed_in(owner)
    versions = entrants(owner, 12)  # every pair of 12: 66 matches
    tournament_id = new_tournament(client, versions)
    answer = client.post(f"/api/tournaments/{tournament_id}/start/")
    assert answer.status_code == 202, answer.content
    assert (answer.json()["status"], answer.json()["matches_total"]) == ("scheduling", 66)
    assert not Match.objects.filter(tournament_id=tournament_id).exists()
    assert in_queue("tournaments") == 1  # the schedule's task, waiting for a worker
    browser = Client()
    page = browser.get(f"/tournaments/{tournament_id}/").content.decode()
    assert 'Writing the schedule: <span id="schedule-text">0 of 66 matches written' in page

    workers.start("builder", "-Q", "tournaments")

    def written() -> bool:
        status = Tournament.objects.get(pk=tournament_id).status
        return status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED)

    wait_for(written, 120, "the worker to write the schedule")
    matches = Match.objects.filter(tournament_id=tournament_id)
    assert sorted(matches.values_list("number", flat=True)) == list(range(66))
    tables = {
        frozenset(Seat.objects.filter(match=match).values_list("version_id", flat=True))
        for match in matches
    }
    pairs = {frozenset(pair) for pair in itertools.combinations([v.pk for v in versions], 2)}
    assert tables == pairs


@pytest.mark.usefixtures("redis_broker")
def test_a_start_over_the_quota_creates_nothing(settings: SettingsWrapper) -> None:
    """Refused on the matches counted before any schedule is built: 64 entrants at 2
    seats plan 2,016 (the built schedule has 2,336, seconds of work to find)."""
    settings.QUOTA_MATCHES_QUEUED = 500
    owner = User.objects.create(username="greedy")
    client = signed_in(owner)
    tournament_id = new_tournament(client, entrants(owner, 64))
    refused(client.post(f"/api/tournaments/{tournament_id}/start/"), "has 2016 matches")
    tournament = Tournament.objects.get(pk=tournament_id)
    assert (tournament.status, tournament.matches_total) == (Tournament.Status.DRAFT, 0)
    assert not Match.objects.exists()
    assert in_queue("tournaments") == 0


@pytest.mark.usefixtures("redis_broker")
def test_a_cancel_while_the_schedule_is_written_stops_the_writing() -> None:
    owner = User.objects.create(username="fickle")
    client = signed_in(owner)
    tournament_id = new_tournament(client, entrants(owner, 6))
    assert client.post(f"/api/tournaments/{tournament_id}/start/").status_code == 202
    assert client.post(f"/api/tournaments/{tournament_id}/cancel/").status_code == 200
    assert competition_actions.build_schedule(tournament_id) == "not scheduling"
    assert Tournament.objects.get(pk=tournament_id).status == Tournament.Status.CANCELLED
    assert not Match.objects.exists()
