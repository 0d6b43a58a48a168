"""The match service in one process: claims, leases, exactly-once results and ratings.

Tasks run in-process here (eager, as the tests set it); test_worker.py does the same with
real workers.
"""

from __future__ import annotations

import datetime as dt
import io
import time
from typing import Any

import pytest
from celery.exceptions import Retry
from django.core.management import CommandError, call_command
from django.db import OperationalError, transaction
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import CRASHER, FIRST_LEGAL, first_legal, uploaded
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.competitions.standings import tournament_table
from tournaments.errors import ServiceError
from tournaments.models import (
    BotVersion,
    Match,
    Rating,
    RatingHistory,
    RatingRecord,
    Replay,
    Tournament,
    bundle_code,
)
from tournaments.play import lease, replay_store, tasks
from tournaments.rating.model import global_rating
from tournaments.rating.model.tournament_fit import START_ELO
from tournaments.rating.model.units import placings
from tournaments.rating.stored.recompute import recompute

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("local_sandbox"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def small_round_robin(entrants: int = 3, **fields: object) -> Tournament:
    versions = [first_legal("bigtwo", f"bot{i}") for i in range(entrants - 1)]
    versions.append(bot_actions.house_version("bigtwo", "random"))
    return competition_actions.create_tournament(
        None, "cup", "bigtwo", versions, table_size=2, games_per_pairing=1, seed=4, **fields
    )


def test_starting_a_tournament_plays_every_match_after_commit() -> None:
    tournament = small_round_robin(rated=False)
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
        assert Match.objects.filter(status=Match.Status.QUEUED).count() == 3
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert (tournament.matches_done, tournament.matches_total) == (3, 3)
    assert set(Match.objects.values_list("status", "attempt")) == {(Match.Status.DONE, 1)}
    table = tournament_table(tournament)
    assert sum(row.points for row in table.rows) == 3
    assert all(row.elo_low < row.elo < row.elo_high for row in table.rows)
    assert Rating.objects.count() == 0


def test_a_rolled_back_start_queues_nothing() -> None:
    tournament = small_round_robin()
    with pytest.raises(RuntimeError), transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
        raise RuntimeError("the request failed after starting")
    assert Match.objects.count() == 0


def test_only_one_of_two_claims_wins_and_only_its_attempt_may_store() -> None:
    tournament = small_round_robin()
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
        Match.objects.update(status=Match.Status.CANCELLED)  # keep them from playing
    match = Match.objects.first()
    assert match is not None
    Match.objects.filter(pk=match.pk).update(status=Match.Status.QUEUED)
    assert lease.claim_match(match.pk, "first") == 1
    assert lease.claim_match(match.pk, "second") is None
    Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now())
    assert lease.claim_match(match.pk, "third") == 2
    outcome = {"scores": [1, -1], "places": [1, 2], "games": [], "logs": ["", ""]}
    assert not lease.finish_match(match.pk, 1, outcome)
    assert not lease.renew_lease(match.pk, 1)
    assert lease.finish_match(match.pk, 2, outcome)
    assert not lease.finish_match(match.pk, 2, outcome)
    assert RatingHistory.objects.filter(match=match).count() == 2


def test_a_task_delivered_again_for_a_finished_match_changes_nothing() -> None:
    tournament = small_round_robin()
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    match = Match.objects.first()
    assert match is not None
    before = (match.result, match.attempt, match.finished_at, Replay.objects.count())
    elo = dict(Rating.objects.values_list("bot_id", "elo"))
    assert tasks.play_match.apply(args=[match.pk]).get() == "not claimed"
    match.refresh_from_db()
    assert (match.result, match.attempt, match.finished_at, Replay.objects.count()) == before
    assert dict(Rating.objects.values_list("bot_id", "elo")) == elo


def test_a_crashing_bot_is_a_fault_in_the_result_and_is_not_retried() -> None:
    crasher = uploaded("bigtwo", "crasher", CRASHER)
    steady = first_legal("bigtwo", "steady")
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", [crasher, steady], table_size=2, games_per_pairing=2
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    match = Match.objects.get()
    assert (match.status, match.attempt) == (Match.Status.DONE, 1)
    seat = [s.version_id for s in match.seats.all()].index(crasher.pk)
    assert [(f["kind"], f["bot"], f["game"]) for f in match.faults] == [("closed", seat, 0)]
    assert "crashing on purpose" in match.seats.get(index=seat).log
    assert len(replay_store.load(match.replay)["games"]) == 4


def test_passing_infrastructure_trouble_is_retried_then_given_up_with_reasons(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.MATCH_MAX_ATTEMPTS = 3

    def broken() -> object:
        raise RuntimeError("the container did not start in time")

    monkeypatch.setattr(tasks, "sandbox_backend", broken)
    tournament = cup_of_two()
    match = Match.objects.get()
    assert (match.status, match.attempt) == (Match.Status.FAILED, 3)
    assert match.failure.count("the container did not start in time") == 3
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_an_unreachable_engine_ends_the_match_at_once_naming_the_cause(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No retry mends a host that cannot play (issue 28): the match ends at its first
    attempt instead of waiting, and its failure says why."""
    settings.MATCH_MAX_ATTEMPTS = 3

    def broken() -> object:
        raise ConnectionError("Docker engine not answering")

    monkeypatch.setattr(tasks, "sandbox_backend", broken)
    cup_of_two()
    match = Match.objects.get()
    assert (match.status, match.attempt) == (Match.Status.FAILED, 1)
    assert "this server cannot play it" in match.failure
    assert match.failure.count("Docker engine not answering") == 1


def cup_of_two() -> Tournament:
    """A started two-player Big Two tournament of one match (tasks run eagerly)."""
    tournament = competition_actions.create_tournament(
        None,
        "cup",
        "bigtwo",
        [first_legal("bigtwo", "a"), first_legal("bigtwo", "b")],
        table_size=2,
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    return tournament


def test_a_database_outage_while_storing_is_retried_and_stored_once(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.MATCH_LEASE_SECONDS = 0.3
    real_finish = lease.finish_match
    outages = []

    def finish_once_the_database_is_back(*args: Any, **kwargs: Any) -> bool:
        if not outages:
            outages.append(args)
            raise OperationalError("server closed the connection unexpectedly")
        return real_finish(*args, **kwargs)

    monkeypatch.setattr(lease, "finish_match", finish_once_the_database_is_back)
    tournament = small_round_robin(entrants=2)
    with pytest.raises(Retry), transaction.atomic():  # in-process, the retry shows
        competition_actions.start_tournament(tournament.pk)  # plays; storing fails; retried at once
    match = Match.objects.get()
    assert (match.status, match.attempt, match.result) == (Match.Status.RUNNING, 1, None)
    time.sleep(0.4)  # the lease of the failed attempt runs out
    assert lease.reap_matches()["requeued"] == 1
    match.refresh_from_db()
    assert (match.status, match.attempt) == (Match.Status.DONE, 2)
    assert RatingHistory.objects.filter(match=match).count() == 2


def test_the_reaper_requeues_an_expired_lease_and_gives_up_after_the_last_attempt(
    settings: SettingsWrapper,
) -> None:
    settings.MATCH_MAX_ATTEMPTS = 2
    tournament = small_round_robin(entrants=2)
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
        Match.objects.update(status=Match.Status.CANCELLED)
    match = Match.objects.get()
    past = timezone.now() - dt.timedelta(seconds=1)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.RUNNING, attempt=1, lease_expires_at=past, worker="gone:1"
    )
    assert lease.reap_matches()["requeued"] == 1  # requeued and played at once
    match.refresh_from_db()
    assert (match.status, match.attempt) == (Match.Status.DONE, 2)
    assert "worker gone:1 lost" in match.failure
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.RUNNING, lease_expires_at=past, result=None
    )
    assert lease.reap_matches()["failed"] == 1
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED and "gave up after 2 attempts" in match.failure


def test_the_reaper_resends_queued_matches_only_when_no_worker_takes_any(
    settings: SettingsWrapper,
) -> None:
    tournament = small_round_robin(entrants=3)
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
        Match.objects.update(status=Match.Status.CANCELLED)  # lost: never played
    long_ago = timezone.now() - dt.timedelta(seconds=settings.MATCH_REQUEUE_AFTER_SECONDS + 1)
    # Sent to the broker long ago (the dispatcher gave them slots) and never claimed.
    Match.objects.update(status=Match.Status.QUEUED, enqueued_at=long_ago, sent_at=long_ago)
    busy = Match.objects.first()
    assert busy is not None
    Match.objects.filter(pk=busy.pk).update(status=Match.Status.RUNNING, started_at=timezone.now())
    assert lease.reap_matches()["resent"] == 0
    Match.objects.filter(pk=busy.pk).update(status=Match.Status.QUEUED, started_at=long_ago)
    assert lease.reap_matches()["resent"] == 3
    assert set(Match.objects.values_list("status", "attempt")) == {(Match.Status.DONE, 1)}


def test_cancel_stops_the_queue_and_resume_finishes_it(settings: SettingsWrapper) -> None:
    tournament = small_round_robin(entrants=4)
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
        competition_actions.cancel_tournament(tournament.pk)
    assert Match.objects.filter(status=Match.Status.CANCELLED).count() == 6
    competition_actions.resume_tournament(tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert Match.objects.filter(status=Match.Status.DONE).count() == 6


def test_recomputed_ratings_equal_the_incremental_ones() -> None:
    tournament = small_round_robin(entrants=5, rounds=2)
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    assert Match.objects.filter(status=Match.Status.DONE).count() == 20
    report = recompute()
    assert report.matches == 20 and report.differences == {}
    assert report.record_differences == set() and RatingRecord.objects.count() == 20
    assert report.ratings == dict(Rating.objects.values_list("bot_id", "elo"))
    assert len(set(report.ratings.values())) > 1
    out = io.StringIO()
    call_command("recompute_ratings", "--progress-every", "7", stdout=out)  # raises if differ
    assert "7 matches replayed" in out.getvalue() and "14 matches replayed" in out.getvalue()
    history = sorted(RatingHistory.objects.values_list("match_id", "bot_id", "before", "after"))
    assert len(history) == 40
    Rating.objects.filter(pk=Rating.objects.first().pk).update(elo=1234.5)  # type: ignore[union-attr]
    RatingRecord.objects.filter(pk=RatingRecord.objects.first().pk).update(results=9.0)  # type: ignore[union-attr]
    with pytest.raises(CommandError, match="differ"):
        call_command("recompute_ratings", stdout=io.StringIO())
    call_command("recompute_ratings", "--write", stdout=io.StringIO())
    again = recompute()
    assert again.differences == {} and again.record_differences == set()
    rewritten = RatingHistory.objects.values_list("match_id", "bot_id", "before", "after")
    assert sorted(rewritten) == history
    # Every finished match stored its comparison units with its result.
    assert not Match.objects.filter(status=Match.Status.DONE, units="").exists()


def test_it_refuses_a_table_larger_than_the_entrants() -> None:
    with pytest.raises(ServiceError, match="at least 4 different"):
        competition_actions.create_tournament(
            None, "cup", "bigtwo", [first_legal("bigtwo", "a"), first_legal("bigtwo", "b")]
        )


def test_the_global_rating_moves_once_per_unit_in_the_results_transaction() -> None:
    versions = [first_legal("bigtwo", "one"), bot_actions.house_version("bigtwo", "random")]
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", versions, table_size=2, games_per_pairing=3, seed=4
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    match = Match.objects.get()
    bots = [seat.version.bot_id for seat in match.seats.order_by("index")]
    expected = global_rating.replay([placings(bots, match.units)])
    assert len(match.units.split()) == 3
    for rating in Rating.objects.all():
        state = expected[rating.bot_id]
        assert (rating.elo, rating.units, rating.deviation) == (state.elo, 3, state.deviation)
        assert rating.deviation < global_rating.START_DEVIATION and rating.provisional
    history = RatingHistory.objects.values_list("bot_id", "before", "after")
    assert sorted(history) == sorted((b, START_ELO, expected[b].elo) for b in bots)
    # Each bot's record of the other's version is stored: one result per unit, seen at
    # its rating.
    records = RatingRecord.of(bots)
    version = {seat.version.bot_id: seat.version_id for seat in match.seats.all()}
    for bot, other in (bots, bots[::-1]):
        assert records[bot] == {version[other]: expected[bot].records[other]}
        record = records[bot][version[other]]
        assert record.results == 3 and record.seen == expected[other].elo


def test_a_new_version_widens_its_bot_once_and_recompute_does_the_same() -> None:
    first = first_legal("bigtwo", "improver")
    house = bot_actions.house_version("bigtwo", "random")
    code, digest = bundle_code({"main.py": (FIRST_LEGAL % {"delay": 0.0} + "# v2\n").encode()})
    second = bot_actions.add_version(first.bot, code, digest, BotVersion.Status.ACCEPTED)
    states: dict[int, global_rating.Skill] = {}
    for number, version in enumerate([first, second, second]):
        tournament = competition_actions.create_tournament(
            None, f"cup {number}", "bigtwo", [version, house], table_size=2, games_per_pairing=3
        )
        with transaction.atomic():
            competition_actions.start_tournament(tournament.pk)
        match = Match.objects.get(tournament=tournament)
        bots = [seat.version.bot_id for seat in match.seats.order_by("index")]
        # Only the second tournament seats a version never rated before (the improver's
        # first version starts as a new bot does, so widening it changes nothing).
        new = {first.bot_id} if number == 1 else set()
        by_bot = {seat.version.bot_id: seat.version_id for seat in match.seats.all()}
        states.update(
            global_rating.rate_units(states, placings(bots, match.units), new, versions=by_bot)
        )
        records = RatingRecord.of(bots)
        rows = {r.bot_id: r.skill(records[r.bot_id]) for r in Rating.objects.all()}
        assert rows == {bot: states[bot] for bot in bots}
    # The second version counted the first one's three results less.
    assert 0.0 < states[first.bot_id].records[house.pk].results < 9.0
    # The house bot keeps its results against each of the improver's versions apart.
    assert states[house.bot_id].records.keys() == {first.pk, second.pk}
    report = recompute()
    assert report.differences == {} and report.record_differences == set()
