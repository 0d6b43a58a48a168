"""Replays live in gzip files outside the match row: stored once, served gzipped, frames
computed once, files removed with their match, and old rows moved by the migration."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.web.test_replays import record
from tournaments.models import Bot, BotVersion, Match, Replay, Seat
from tournaments.play import replay_store
from tournaments.web import match_views, replays

BEFORE = [("tournaments", "0006_scale_rows_and_indexes")]
AFTER = [("tournaments", "0007_replays_out_of_the_match_row")]


@pytest.fixture
def replay_root(settings: SettingsWrapper, tmp_path: Path) -> Path:
    settings.REPLAY_ROOT = tmp_path / "replays"
    return settings.REPLAY_ROOT  # type: ignore[no-any-return]


def files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def finished_match(kept: dict[str, Any]) -> Match:
    bot = Bot.objects.create(game="bigtwo", name="b")
    version = BotVersion.objects.create(bot=bot, number=1, content_hash="x", status="accepted")
    match = Match.objects.create(
        game="bigtwo", status=Match.Status.DONE, finished_at=timezone.now(), result={}
    )
    for index in range(4):
        Seat.objects.create(match=match, index=index, version=version)
    replay_store.stored_replay(match.pk, kept).save()
    return match


@pytest.mark.django_db
def test_the_record_is_kept_gzipped_and_served_as_kept(replay_root: Path) -> None:
    kept = record("bigtwo", 4, {})
    match = finished_match(kept)
    [stored] = files(replay_root)
    assert json.loads(gzip.decompress(stored.read_bytes())) == kept
    assert match.replay.size == stored.stat().st_size < len(json.dumps(kept)) / 3
    url = f"/api/matches/{match.pk}/replay/"
    zipped = Client().get(url, headers={"Accept-Encoding": "gzip, deflate"})
    assert zipped["Content-Encoding"] == "gzip" and zipped.content == stored.read_bytes()
    assert "Accept-Encoding" in zipped["Vary"]
    plain = Client().get(url)
    assert not plain.has_header("Content-Encoding") and plain.json() == kept


@pytest.mark.django_db
def test_frames_are_computed_once_then_read_from_their_file(
    replay_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = record("bigtwo", 4, {})
    match = finished_match(kept)
    computed = []
    original = replays.frames

    def counted(*args: Any) -> Any:
        computed.append(args[1:])
        return original(*args)

    monkeypatch.setattr(match_views.replays, "frames", counted)
    url = reverse("web:frames", args=[match.pk]) + "?game=1&seat=2"
    first = Client().get(url).json()
    again = Client().get(url, headers={"Accept-Encoding": "gzip"})
    assert computed == [(1, 2)] and again["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(again.content)) == first
    assert first == {**original(kept, 1, 2), "bots": [f"bot{i}" for i in range(4)]}
    assert Client().get(url.replace("seat=2", "seat=4")).status_code == 400
    assert len(files(replay_root)) == 2  # the record and one game's frames from one seat


@pytest.mark.django_db
def test_deleting_a_match_removes_its_files(
    replay_root: Path, django_capture_on_commit_callbacks: Any
) -> None:
    match = finished_match(record("bigtwo", 4, {}))
    Client().get(reverse("web:frames", args=[match.pk]) + "?game=0&seat=all")
    other = finished_match(record("bigtwo", 4, {}))
    assert len(files(replay_root)) == 3
    with django_capture_on_commit_callbacks(execute=True):
        Match.objects.filter(pk=match.pk).delete()
    assert files(replay_root) == [replay_root / other.replay.name]


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_stored_replays_to_files_and_back(replay_root: Path) -> None:
    kept = record("oceans11", 2, {})
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    OldMatch = old.get_model("tournaments", "Match")
    done = OldMatch.objects.create(game="oceans11", status="done", replay=kept)
    waiting = OldMatch.objects.create(game="oceans11", status="queued")
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    moved = Replay.objects.get()
    assert moved.match_id == done.pk and moved.games == len(kept["games"]) == 2
    assert moved.players == 2 and replay_store.load(moved) == kept
    assert not Replay.objects.filter(match_id=waiting.pk).exists()
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    back = executor.loader.project_state(BEFORE).apps.get_model("tournaments", "Match")
    assert back.objects.get(pk=done.pk).replay == kept and files(replay_root) == []
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert replay_store.load(Replay.objects.get(match_id=done.pk)) == kept  # out again


@pytest.mark.django_db
def test_a_replay_saved_by_root_goes_to_the_owner_of_the_store(replay_root: Path) -> None:
    """On the compose stack the workers are root and the web the app's user (10001): the
    replay folder a worker makes must be the web's, or it cannot keep frames beside it."""
    replay_root.parent.chmod(0o755)
    os.chown(replay_root.parent, 10001, 10001)  # the media volume; the replays folder is
    finished_match(record("bigtwo", 4, {}))  # made by the first worker to save one
    [stored] = files(replay_root)
    owners = {(p.stat().st_uid, p.stat().st_gid) for p in (stored, stored.parent, replay_root)}
    assert owners == {(10001, 10001)}
