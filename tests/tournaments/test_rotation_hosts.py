"""Issue 43: a duplicate match's rotations played on different hosts. With workers on two
hosts live, the match is cut into parts (tournaments.play.dispatch.rotation_parts), each
claimed, leased and played on a host of its own (its host's queue), the result stored and
rated once with the last part, equal to the same match played whole; a part whose worker
is killed is played again elsewhere and the match still ends with one result."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, first_legal, wait_for
from tournaments.competitions import competition_actions
from tournaments.models import Match, MatchPart, RatingRecord, Tournament, Worker
from tournaments.play import dispatch, replay_store, runner, tasks

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")


def duplicate_match(name: str, delay: float = 0.0, seed: int = 43) -> Tournament:
    """A draft tournament of one duplicate Big Two match (2 seats: 2 rotations) between
    two deterministic bots."""
    bots = [first_legal("bigtwo", f"{name}-a", delay), first_legal("bigtwo", f"{name}-b", delay)]
    return competition_actions.create_tournament(
        None, name, "bigtwo", bots, table_size=2, games_per_pairing=4, rounds=1,
        duplicate=True, seed=seed,
    )  # fmt: skip


def start(tournament: Tournament) -> Match:
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    return Match.objects.get(tournament=tournament)


def finished(match: Match) -> bool:
    match.refresh_from_db()
    return match.status in (Match.Status.DONE, Match.Status.FAILED)


def played_whole(match: Match) -> dict[str, Any]:
    """The same match (same seats, seed, games) played whole in this process."""
    plan = dataclasses.replace(tasks.load_plan(match.pk), part=None, carried=None)
    outcome, _ = runner.play(plan, lambda: runner.make_backend("local"))
    return outcome


def without_times(record: dict[str, Any]) -> dict[str, Any]:
    games = [{k: v for k, v in played.items() if k != "times"} for played in record["games"]]
    return record | {"games": games}


def assert_merged_equals_whole(match: Match) -> None:
    whole = played_whole(match)
    assert match.result == {
        "scores": whole["scores"],
        "places": whole["places"],
        "games": [{key: g[key] for key in ("deal", "seating", "result")} for g in whole["games"]],
    }
    assert match.faults == whole["faults"]
    assert [seat.log for seat in match.seats.order_by("index")] == whole["logs"]
    stored = replay_store.load(match.replay)
    assert without_times(stored) == without_times(whole["record"])


def assert_rated_once(match: Match, bot: str) -> None:
    """The match's deals (its comparison units) counted once in the bot's record."""
    assert match.rating_seq is not None
    record = RatingRecord.objects.get(bot__name=bot)
    assert record.results == len(match.units.split()) == 4


def hosts_live(count: int) -> bool:
    return len(dispatch.live_hosts()) >= count


def test_two_hosts_play_a_duplicate_matchs_rotations_one_each(
    workers: Workers, tmp_path: Path
) -> None:
    workers.start("one", env={"WORKER_HOST": "host-a"})
    workers.start("two", env={"WORKER_HOST": "host-b"})
    wait_for(lambda: hosts_live(2), 60, "workers on two hosts to announce themselves")
    match = start(duplicate_match("split"))
    wait_for(lambda: finished(match), 180, "the match to be played")

    assert match.status == Match.Status.DONE and match.parts == 2
    parts = list(MatchPart.objects.filter(match=match).order_by("index"))
    assert [part.index for part in parts] == [0, 1]
    assert {part.host for part in parts} == {"host-a", "host-b"}
    hosts = dict(Worker.objects.values_list("name", "host"))
    for part in parts:  # the worker that played it is on the host it recorded
        assert hosts[part.worker.rpartition(":")[0]] == part.host
    assert [{tuple(g["seating"]) for g in part.games} for part in parts] == [{(0, 1)}, {(1, 0)}]
    assert [(p.first_block, p.end_block) for p in parts] == [(0, 1), (1, 2)]
    assert all(part.records == [] and part.carry == [] for part in parts)  # stored: cleared
    assert match.sent_to == parts[1].host
    assert [g["seating"] for g in match.result["games"]] == [[0, 1]] * 4 + [[1, 0]] * 4
    assert_rated_once(match, "split-a")
    assert_merged_equals_whole(match)


def test_a_part_whose_worker_is_killed_is_played_again_and_stored_once(
    workers: Workers, tmp_path: Path
) -> None:
    schedule = str(tmp_path / "beat-schedule")
    # Beat alone (a tables worker announces no capacity and takes no parts): the reaper's
    # tasks run on the host workers, so killing either leaves it running.
    workers.start("beat", "-Q", "tables", "--beat", "--schedule", schedule)
    # Three hosts for a match of two seatings: when the second part's worker is killed, a
    # host that played none of the match is left to play it again (with only the first
    # part's host left it would be played there, and its row would say so).
    first = {
        name: workers.start(name, env={"WORKER_HOST": f"host-{name}"})
        for name in ("one", "two", "three")
    }
    wait_for(lambda: hosts_live(3), 90, "workers on three hosts to announce themselves")
    match = start(duplicate_match("killed", delay=0.15))

    def second_part_running() -> bool:
        match.refresh_from_db()
        return match.part == 1 and match.status == Match.Status.RUNNING

    wait_for(second_part_running, 180, "the match's second part to be played")
    holder = match.worker.partition("@")[0]
    workers.kill(first[holder])
    wait_for(lambda: finished(match), 240, "the match to be played after the kill")

    assert match.status == Match.Status.DONE, match.failure
    assert "lost" in match.failure  # the killed attempt, in its history
    parts = list(MatchPart.objects.filter(match=match).order_by("index"))
    assert [part.index for part in parts] == [0, 1]
    assert parts[1].host not in (parts[0].host, f"host-{holder}")  # the third host
    assert parts[1].attempt > parts[0].attempt + 1  # the killed attempt came between
    tournament = Tournament.objects.get(pk=match.tournament_id)
    assert tournament.matches_done == 1 and tournament.status == Tournament.Status.FINISHED
    assert_rated_once(match, "killed-a")
    assert_merged_equals_whole(match)


@pytest.mark.django_db(transaction=True)
def test_on_one_host_a_match_is_played_whole(
    settings: SettingsWrapper, local_sandbox: None
) -> None:
    """The tests' in-process tasks (one process, one host): no split, as before."""
    dispatch.announce("one@test", 2, host="host-a")
    match = start(duplicate_match("whole"))
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.parts <= 1  # 0: never split
    assert not MatchPart.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_in_process_two_announced_hosts_split_and_the_result_is_the_whole_match(
    settings: SettingsWrapper, local_sandbox: None
) -> None:
    """The same flow in this process (its tasks run at once): two hosts announced, the
    match is played in two parts and stored once, equal to the match played whole."""
    settings.WORKER_HOST = "host-a"
    dispatch.announce("one@test", 2, host="host-a")
    dispatch.announce("two@test", 2, host="host-b")
    match = start(duplicate_match("eager"))
    match.refresh_from_db()
    assert match.status == Match.Status.DONE, match.failure
    assert match.parts == 2 and match.sent_to == "host-b"
    assert MatchPart.objects.filter(match=match).count() == 2
    assert_merged_equals_whole(match)


@pytest.mark.django_db(transaction=True)
def test_the_setting_off_plays_whole(settings: SettingsWrapper, local_sandbox: None) -> None:
    settings.SPLIT_ROTATIONS_ACROSS_HOSTS = "off"
    dispatch.announce("one@test", 2, host="host-a")
    dispatch.announce("two@test", 2, host="host-b")
    match = start(duplicate_match("off"))
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.parts <= 1  # 0: never split
