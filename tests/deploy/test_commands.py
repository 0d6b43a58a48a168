"""The operators' commands on PostgreSQL: load_seeds, run_tournament and demo.

Bots run as local processes here (house bots in-process) to keep the suite quick; the
first-run test (test_first_run.py) covers SQLite, and scripts/run covers Docker.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from judge.bots import policies
from judge.games import GAMES
from tournaments.competitions import competition_actions
from tournaments.management.commands import _foreground, _seeds
from tournaments.models import Bot, BotVersion, Duel, Match, RatingHistory, Tournament
from tournaments.play import lease

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")


@pytest.fixture(autouse=True)
def quick_sandbox(settings: SettingsWrapper) -> Iterator[None]:
    settings.JUDGE_SANDBOX = "local"
    settings.JUDGE_HOUSE_BOTS = "inprocess"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def seed_count() -> int:
    return sum(len(policies(game)) + len(_seeds.example_files(game)) for game in GAMES)


@pytest.mark.django_db
def test_load_seeds_stores_every_house_and_example_bot_once() -> None:
    first = run("load_seeds")
    second = run("load_seeds")
    assert f"{seed_count()} seed bots; {seed_count()} new versions stored" in first
    assert f"{seed_count()} seed bots; 0 new versions stored" in second
    assert Bot.objects.count() == BotVersion.objects.count() == seed_count()
    examples = BotVersion.objects.filter(bot__owner__username=_seeds.SEEDS_USER)
    assert all(v.status == BotVersion.Status.ACCEPTED and v.code for v in examples)


@pytest.mark.django_db
def test_a_changed_example_becomes_a_new_version_of_the_same_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bigtwo").mkdir()
    example = tmp_path / "bigtwo" / "passer.py"
    example.write_text("import botkit\nbotkit.run(lambda o, legal: legal[0])\n")
    monkeypatch.setattr(_seeds, "seed_files", lambda game: {"passer": example})
    run("load_seeds", "--game", "bigtwo")
    example.write_text("import botkit\nbotkit.run(lambda o, legal: legal[-1])\n")
    run("load_seeds", "--game", "bigtwo")
    bot = Bot.objects.get(name="passer")
    assert list(bot.versions.values_list("number", flat=True).order_by("number")) == [1, 2]
    assert _seeds.current_versions("bigtwo")[-1].number == 2


@pytest.mark.django_db(transaction=True)
def test_the_demo_plays_a_round_robin_per_game_and_a_second_run_reuses_it() -> None:
    output = run("demo", "--no-progress")
    tournaments = list(Tournament.objects.order_by("id"))
    assert [t.game for t in tournaments] == list(GAMES)
    for tournament in tournaments:
        assert tournament.status == Tournament.Status.FINISHED
        assert tournament.matches_done == tournament.matches_total > 0
        assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.DONE}
        assert f"{tournament.name} (#{tournament.pk}" in output
    duel = Duel.objects.get()  # the Oceans 11 house duel, decided, its page printed
    assert duel.status == Duel.Status.DECIDED and duel.state["decision"] == "H1"
    assert f"/duels/{duel.pk}/" in output
    played = Match.objects.count()
    ratings = RatingHistory.objects.count()

    again = run("demo", "--no-progress")
    assert Tournament.objects.count() == len(GAMES) and Match.objects.count() == played
    assert RatingHistory.objects.count() == ratings and Duel.objects.count() == 1
    assert again.splitlines()[-6:] == output.splitlines()[-6:]  # the same standings


@pytest.mark.django_db(transaction=True)
def test_run_tournament_finishes_an_interrupted_tournament_playing_each_match_once() -> None:
    entrants = _seeds.current_versions("fifteen35")
    tournament = competition_actions.create_tournament(
        None, "cup", "fifteen35", entrants, table_size=3, games_per_pairing=1, seed=5
    )
    with _foreground.queue_only():
        competition_actions.start_tournament(tournament.pk)
    # A worker claimed the first match and died: its lease ran out long ago.
    first = Match.objects.get(tournament=tournament, number=0)
    lease.claim_match(first.pk, "dead-worker")
    Match.objects.filter(pk=first.pk).update(lease_expires_at=timezone.now())

    output = run("run_tournament", str(tournament.pk), "--no-progress")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    matches = list(tournament.matches.order_by("number"))
    assert [m.status for m in matches] == [Match.Status.DONE] * 4
    assert matches[0].attempt == 2 and "lease expired" in matches[0].failure
    # Each rated match once (a table of one owner's two seed bots is played unrated).
    assert RatingHistory.objects.count() == 3 * sum(m.rated for m in matches) > 0
    assert f"cup (#{tournament.pk}, fifteen35): finished, 4 of 4 matches played" in output


@pytest.mark.django_db
def test_run_tournament_names_a_missing_tournament() -> None:
    with pytest.raises(CommandError, match="there is no tournament 404"):
        run("run_tournament", "404")


@pytest.mark.django_db
def test_the_sandbox_falls_back_to_local_processes_with_a_warning(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.JUDGE_SANDBOX = "docker"

    def no_docker() -> None:
        raise _foreground.runner.InfrastructureError("the Docker engine is not answering")

    monkeypatch.setattr(_foreground.tasks, "sandbox_backend", no_docker)
    messages: list[str] = []
    assert _foreground.choose_sandbox(messages.append) == "local"
    assert settings.JUDGE_SANDBOX == "local"
    assert "the Docker engine is not answering" in messages[0]
    assert "NOT isolated" in messages[0]


@pytest.mark.docker
def test_remove_containers_reports_what_it_removed_and_kept() -> None:
    assert re.fullmatch(
        r"removed \d+ of \d+ bot containers; \d+ still in use\n", run("remove_containers")
    )


@pytest.mark.docker
def test_build_bot_image_leaves_the_bot_image_up_to_date() -> None:
    assert "the bot image cardjudge/runtime-python:latest is up to date" in run("build_bot_image")


@pytest.mark.django_db(transaction=True)
def test_an_interrupted_match_goes_back_to_the_queue_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entrants = _seeds.current_versions("bigtwo")[:2]
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", entrants, table_size=2, games_per_pairing=1
    )
    with _foreground.queue_only():
        competition_actions.start_tournament(tournament.pk)

    def claim_then_ctrl_c(match_id: int) -> None:
        lease.claim_match(match_id, _foreground.tasks.worker_name(None))
        raise KeyboardInterrupt

    claim_then_ctrl_c.apply_async = _foreground.tasks.play_match.apply_async  # type: ignore[attr-defined]
    monkeypatch.setattr(_foreground.tasks, "play_match", claim_then_ctrl_c)
    with pytest.raises(CommandError, match="interrupted; run_tournament"):
        run("run_tournament", str(tournament.pk), "--no-progress")
    match = Match.objects.get(tournament=tournament)
    assert (match.status, match.attempt) == (Match.Status.QUEUED, 1)
    assert "interrupted (Ctrl-C)" in match.failure

    monkeypatch.undo()
    run("run_tournament", str(tournament.pk), "--no-progress")
    match.refresh_from_db()
    assert (match.status, match.attempt) == (Match.Status.DONE, 2)
