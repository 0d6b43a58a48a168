"""Bot containers carry the deployment's name, so services sharing a Docker engine (or a
test database and a development one) never label theirs alike or remove each other's."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from pytest_django.fixtures import Settings as SettingsWrapper

from sandbox import docker_backend
from sandbox.limits import Limits
from tests.tournaments.conftest import first_legal
from tests.tournaments.recording import RecordingBackend
from tournaments.competitions import competition_actions
from tournaments.models import Match
from tournaments.play import tasks
from tournaments.play.instance import derived_instance, judge_instance

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

POSTGRES = {"ENGINE": "django.db.backends.postgresql", "HOST": "127.0.0.1", "PORT": 5432}


def test_a_test_database_and_a_development_one_get_different_names() -> None:
    development = derived_instance({**POSTGRES, "NAME": "cardjudge"})
    testing = derived_instance({**POSTGRES, "NAME": "test_cardjudge_4242"})
    assert development.startswith("cardjudge-") and testing.startswith("test_cardjudge_4242-")
    assert development != testing


def test_one_database_name_on_two_hosts_gets_two_names() -> None:
    here = derived_instance({**POSTGRES, "NAME": "judge"})
    there = derived_instance({**POSTGRES, "HOST": "db.example.org", "NAME": "judge"})
    assert here != there


def test_every_worker_of_one_database_derives_the_same_name() -> None:
    database = {"ENGINE": "django.db.backends.sqlite3", "NAME": "/srv/judge/var/db.sqlite3"}
    assert derived_instance(database) == derived_instance(dict(database))
    assert derived_instance(database).startswith("db-")


def test_a_derived_name_is_safe_in_labels_and_folder_names() -> None:
    name = derived_instance({**POSTGRES, "NAME": "a weird/name:with*all" + "x" * 80})
    assert len(name) <= 40
    assert all(c.isalnum() or c in "_.-" for c in name)


def test_judge_instance_setting_wins_over_the_derived_name(settings: SettingsWrapper) -> None:
    settings.JUDGE_INSTANCE = "blue"
    assert judge_instance() == "blue"


@pytest.mark.django_db
def test_judge_instance_derives_from_the_database_in_use(settings: SettingsWrapper) -> None:
    settings.JUDGE_INSTANCE = ""
    assert judge_instance() == derived_instance(connection.settings_dict)
    assert judge_instance().startswith(str(connection.settings_dict["NAME"])[:24])


@pytest.mark.django_db(transaction=True)
def test_a_played_match_labels_its_bots_with_the_instance(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.JUDGE_SANDBOX = "local"
    settings.JUDGE_INSTANCE = "blue"
    recording = RecordingBackend()
    monkeypatch.setattr(tasks, "sandbox_backend", lambda: recording)
    versions = [first_legal("bigtwo", "one"), first_legal("bigtwo", "two")]
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", versions, table_size=2, games_per_pairing=1, seed=3, rated=False
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    match = Match.objects.get(tournament=tournament)
    assert match.status == Match.Status.DONE
    assert set(recording.labels) == {
        f"blue-match-{match.pk}-bot0",
        f"blue-match-{match.pk}-bot1",
    }


def sleeper(tmp_path: Path) -> Path:
    folder = tmp_path / "sleeper"
    folder.mkdir(exist_ok=True)
    (folder / "main.py").write_text("import sys\nfor line in sys.stdin:\n    pass\n")
    return folder


@pytest.mark.docker
@pytest.mark.django_db
def test_remove_containers_all_leaves_another_deployments_bots_alone(
    settings: SettingsWrapper, tmp_path: Path
) -> None:
    settings.JUDGE_INSTANCE = f"mine{time.time_ns()}"
    backend = docker_backend.DockerBackend(clean=False)
    ours = backend.start(
        sleeper(tmp_path), label=f"{judge_instance()}-match-7-bot0", limits=Limits()
    )
    theirs_label = f"theirs{time.time_ns()}-match-7-bot0"
    theirs = backend.start(sleeper(tmp_path), label=theirs_label, limits=Limits())
    try:
        call_command("remove_containers", "--all", stdout=io.StringIO())

        def labelled(label: str) -> list[Any]:
            return [
                c
                for c in docker_backend.bot_containers(backend.client)
                if c.labels.get(docker_backend.MATCH_LABEL) == label
            ]

        assert labelled(f"{judge_instance()}-match-7-bot0") == []
        assert len(labelled(theirs_label)) == 1
    finally:
        ours.close()
        theirs.close()
