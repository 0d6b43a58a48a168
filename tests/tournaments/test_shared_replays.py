"""Workers on several hosts need only the database, Redis and the replay store: two worker
processes with media folders of their own (sharing no folder with each other nor with the
web) play a tournament, their replays go to an SFTP server (OpenSSH's sshd, run here on
a loopback port with keys made for the test), and the web serves every replay and its
frames from there (docs/deploy.md, "Workers on several machines")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import transaction
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, first_legal, wait_for
from tests.tournaments.sftp_server import Store, sftp_server
from tournaments.competitions import competition_actions
from tournaments.models import Match, Replay, Tournament

GAME = "oceans11"


@pytest.fixture
def sftp_store(tmp_path: Path) -> Iterator[Store]:
    with sftp_server(tmp_path) as store:
        yield store


def files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_two_workers_sharing_only_the_database_redis_and_an_sftp_store(
    workers: Workers, sftp_store: Store, settings: SettingsWrapper, tmp_path: Path
) -> None:
    for key, value in sftp_store.env().items():
        setattr(settings, key, value)
    settings.SFTP_STORAGE_PARAMS = {
        "port": sftp_store.port,
        "username": "root",
        "key_filename": str(sftp_store.key),
        "look_for_keys": False,
        "allow_agent": False,
        "timeout": 10,
    }
    web_media = tmp_path / "web-media"
    settings.MEDIA_ROOT, settings.REPLAY_ROOT = web_media, web_media / "replays"
    workers.env.update(sftp_store.env())
    hosts = {}
    for name in ("east", "west"):
        hosts[name] = tmp_path / f"{name}-media"
        workers.env["MEDIA_ROOT"] = str(hosts[name])
        workers.env["JUDGE_BUILD_CACHE"] = str(tmp_path / f"{name}-builds")
        workers.start(name)
    entrants = [first_legal(GAME, f"bot{i}", delay=0.02) for i in range(4)]
    tournament = competition_actions.create_tournament(
        None, "cup", GAME, entrants, games_per_pairing=2, seed=11
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    wait_for(lambda: finished(tournament), 240, "the tournament to finish")
    wait_for(lambda: Replay.objects.count() == 6, 30, "the six replays")

    matches = list(Match.objects.filter(tournament=tournament).select_related("replay"))
    assert {m.worker.split("@")[0] for m in matches} == {"east", "west"}  # both played
    stored = {p.relative_to(sftp_store.root).as_posix() for p in files(sftp_store.root)}
    assert stored == {m.replay.name for m in matches}
    for folder in (*hosts.values(), web_media):  # no host kept a replay of its own
        assert files(folder) == [], folder

    client = Client()
    for match in matches:
        answer = client.get(f"/api/matches/{match.pk}/replay/", headers={"Accept-Encoding": "gzip"})
        assert answer.status_code == 200
        assert answer.content == (sftp_store.root / match.replay.name).read_bytes()
        assert client.get(f"/matches/{match.pk}/frames/?seat=0").status_code == 200
    frames = [p.name for p in files(sftp_store.root) if ".frames" in p.name]
    assert len(frames) >= len(matches)  # computed once, kept in the shared store
    assert files(web_media) == []


def finished(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status == Tournament.Status.FINISHED
