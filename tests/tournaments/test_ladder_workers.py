"""The ladder with real Celery workers and beat on Redis and PostgreSQL: nobody asks for
its matches, it never runs more than its budget, and retiring or pausing stops a bot or a
game (docs/ladder.md)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest
from django.db import transaction
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import FIRST_LEGAL, Workers, first_legal, wait_for
from tournaments.api import actions
from tournaments.bots import bot_actions
from tournaments.bots.uploads import read_upload
from tournaments.competitions import competition_actions, ladder
from tournaments.models import Bot, BotVersion, Match, Rating, Tournament

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")
GAME = "oceans11"


def ladder_on(
    workers: Workers, settings: SettingsWrapper, slots: int, tournament_slots: int
) -> None:
    """Workers (and this process, which dispatches when it starts a tournament) run the
    ladder with these budgets; beat looks every second."""
    values = {
        "LADDER_ENABLED": "true",
        "LADDER_SLOTS": str(slots),
        "TOURNAMENT_SLOTS": str(tournament_slots),
        "LADDER_INTERVAL_SECONDS": "1",
        "LADDER_TARGET_DEVIATION": "0",  # never settled: the ladder keeps playing
        "JUDGE_HOUSE_BOTS": "inprocess",
    }
    workers.env.update(values)
    settings.LADDER_ENABLED, settings.LADDER_SLOTS = True, slots
    settings.TOURNAMENT_SLOTS, settings.LADDER_TARGET_DEVIATION = tournament_slots, 0.0


def done_ladder_matches(game: str = GAME) -> list[Match]:
    return list(ladder.ladder_matches().filter(game=game, status=Match.Status.DONE).order_by("id"))


def seated(match: Match) -> set[int]:
    return set(match.seats.values_list("version_id", flat=True))


def most_at_once(matches: Sequence[Match]) -> int:
    """The most of these matches that were ever being played at the same moment."""
    events = []
    for match in matches:
        assert match.started_at is not None and match.finished_at is not None
        events += [(match.started_at, 1), (match.finished_at, -1)]
    running = most = 0
    for _, step in sorted(events, key=lambda e: (e[0], e[1])):
        running += step
        most = max(most, running)
    return most


def test_a_new_upload_gets_rated_ladder_matches_without_anyone_asking(
    workers: Workers, settings: SettingsWrapper
) -> None:
    ladder_on(workers, settings, slots=1, tournament_slots=1)
    first_legal(GAME, "resident")
    bot_actions.house_version(GAME, "random")
    workers.start_with_reaper("solo")
    wait_for(lambda: len(done_ladder_matches()) >= 1, 120, "the ladder's first match")

    bot = Bot.objects.create(owner=None, game=GAME, name="newcomer")
    bundle = read_upload("main.py", (FIRST_LEGAL % {"delay": 0.0}).encode())
    version, _ = actions.upload_version(bot, bundle)  # checked by the worker, then laddered

    def newcomer_rated() -> bool:
        return any(version.pk in seated(m) for m in done_ladder_matches())

    wait_for(newcomer_rated, 180, "a ladder match of the new upload")
    version.refresh_from_db()
    assert version.status == BotVersion.Status.ACCEPTED
    match = next(m for m in done_ladder_matches() if version.pk in seated(m))
    assert match.rated and match.rating_seq is not None and match.tournament_id is None
    assert Rating.objects.get(bot=bot).matches >= 1


def test_a_retired_bot_stops_and_the_others_play_on(
    workers: Workers, settings: SettingsWrapper
) -> None:
    ladder_on(workers, settings, slots=1, tournament_slots=1)
    versions = [first_legal(GAME, name) for name in ("a", "b", "c")]
    workers.start_with_reaper("solo")
    leaving = versions[0]

    def played_by(version: BotVersion) -> bool:
        return any(version.pk in seated(m) for m in done_ladder_matches())

    wait_for(lambda: played_by(leaving), 180, "the bot to be retired to play")
    with transaction.atomic():
        actions.retire_bot(leaving.bot)
    cutoff = after_a_ladder_match_ends_in()
    wait_for(lambda: len(made_after(cutoff)) >= 3, 180, "three ladder matches made after retiring")
    later = made_after(cutoff)
    assert all(leaving.pk not in seated(m) for m in later), describe(later)
    assert {versions[1].pk, versions[2].pk} <= set().union(*(seated(m) for m in later))


def after_a_ladder_match_ends_in(game: str = GAME) -> dt.datetime:
    """A moment after which every new ladder match sees what was committed before now:
    when a match made from now on has ended (a dispatcher that was already choosing
    tables when this was called may still make one match from what it read)."""
    now = timezone.now()
    wait_for(lambda: bool(made_after(now, game)), 180, f"a {game} ladder match")
    first = made_after(now, game)[0]
    assert first.finished_at is not None
    return first.finished_at


def made_after(moment: dt.datetime, game: str = GAME) -> list[Match]:
    return [m for m in done_ladder_matches(game) if m.created_at > moment]


def describe(matches: Sequence[Match]) -> str:
    return "; ".join(f"{m.pk} {m.created_at} {sorted(seated(m))}" for m in matches)


def test_the_ladder_never_runs_more_than_its_budget_nor_takes_a_waiting_tournaments_slot(
    workers: Workers, settings: SettingsWrapper
) -> None:
    ladder_on(workers, settings, slots=1, tournament_slots=2)
    versions = [first_legal(GAME, f"bot{i}") for i in range(4)]
    for i in range(2):  # a second game: two tables could be made, the budget allows one
        first_legal("bigtwo", f"big{i}")
    workers.start_with_reaper("one")
    workers.start("two")
    wait_for(lambda: len(done_ladder_matches()) >= 2, 180, "two oceans11 ladder matches")

    tournament = competition_actions.create_tournament(None, "cup", GAME, versions[:3], seed=3)
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)

    def finished() -> bool:
        tournament.refresh_from_db()
        return tournament.status == Tournament.Status.FINISHED

    wait_for(finished, 180, "the tournament to finish beside the ladder")
    wait_for(lambda: len(done_ladder_matches("bigtwo")) >= 2, 180, "two bigtwo ladder matches")

    everything = ladder.ladder_matches().exclude(started_at=None).exclude(finished_at=None)
    assert most_at_once(list(everything)) == 1
    sent = sorted(Match.objects.filter(tournament=tournament).values_list("sent_at", flat=True))
    # While a tournament match waited for a slot, no ladder match was made.
    made_meanwhile = ladder.ladder_matches().filter(created_at__gt=sent[0], created_at__lt=sent[-1])
    assert not made_meanwhile.exists()
    assert sent[-1] - sent[0] < dt.timedelta(minutes=10)


def test_pausing_a_game_stops_its_ladder_while_another_game_plays_on(
    workers: Workers, settings: SettingsWrapper
) -> None:
    ladder_on(workers, settings, slots=1, tournament_slots=1)
    for name in ("a", "b"):
        first_legal(GAME, name)
        first_legal("bigtwo", name)
    workers.start_with_reaper("solo")
    wait_for(lambda: len(done_ladder_matches()) >= 1, 180, "an oceans11 ladder match")
    competition_actions.pause_ladder(GAME)
    cutoff = after_a_ladder_match_ends_in("bigtwo")
    wait_for(lambda: len(made_after(cutoff, "bigtwo")) >= 2, 180, "two bigtwo matches after")
    made = ladder.ladder_matches().filter(game=GAME, created_at__gt=cutoff)
    assert not made.exists(), describe(list(made))
    assert not ladder.ladder_matches().filter(game=GAME, status=Match.Status.QUEUED).exists()

    competition_actions.pause_ladder(GAME, paused=False)
    resumed_at = timezone.now()
    wait_for(
        lambda: any(m.created_at > resumed_at for m in done_ladder_matches()),
        180,
        "an oceans11 ladder match after resuming",
    )
