"""A site whose workers played real matches is backed up (manage.py backup, its own
process), restored into a fresh database and a fresh media folder (manage.py restore),
and served again: its pages, API answers, replay files and ratings are the same, byte
for byte where nothing but the data makes them (docs/deploy.md, "Backups")."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection, transaction

from tests.tournaments.conftest import CRASHER, Workers, first_legal, uploaded, wait_for
from tests.tournaments.gunicorn_server import gunicorn
from tournaments.competitions import competition_actions
from tournaments.models import Match, Rating, Replay, Tournament
from tournaments.play import backups
from tournaments.rating.stored import field_view

ROOT = Path(__file__).resolve().parents[2]
GAME = "oceans11"
#: What differs between two answers of the same data: the CSRF token of a form.
PER_REQUEST = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]*"|csrftoken=[^;]*')


def database_url(name: str) -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{name}"


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """An empty database beside the test database, dropped afterwards."""
    name = f"{connection.settings_dict['NAME']}_restored"
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    yield name
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(*args: str, **env: str) -> str:
    """Run manage.py in a process of its own; its output (failing the test if it fails)."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tournaments.config.settings", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def fetch(port: int, paths: list[str]) -> dict[str, tuple[int, bytes]]:
    found = {}
    for path in paths:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        answer = conn.getresponse()
        found[path] = (answer.status, PER_REQUEST.sub(b"", answer.read()))
    return found


def pages_of(tournament: Tournament) -> list[str]:
    matches = list(Match.objects.filter(tournament=tournament).order_by("id"))
    bots = sorted({bot for m in matches for bot in m.seats.values_list("bot_id", flat=True)})
    paths = ["/", f"/leaderboard/{GAME}/", "/tournaments/", f"/tournaments/{tournament.pk}/"]
    paths += [f"/api/leaderboards/{GAME}/", "/api/matches/", f"/api/tournaments/{tournament.pk}/"]
    paths += [f"/api/tournaments/{tournament.pk}/standings/"]
    for match in matches:
        paths += [f"/matches/{match.pk}/", f"/api/matches/{match.pk}/"]
        paths += [f"/api/matches/{match.pk}/replay/", f"/matches/{match.pk}/frames/?seat=0"]
    paths += [f"/bots/{bot}/" for bot in bots]
    return paths


def ratings(url: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT bot_id, game, elo, deviation, units, variance, matches, wins, draws, losses "
            "FROM tournaments_rating ORDER BY bot_id"
        ).fetchall()
        history = db.execute(
            "SELECT bot_id, match_id, seq, before, after FROM tournaments_ratinghistory "
            "ORDER BY bot_id, match_id"
        ).fetchall()
    return [*rows, *history]


def test_a_played_site_restored_into_a_fresh_database_and_media_folder_is_the_same(
    workers: Workers, fresh_database: str, tmp_path: Path, settings: object
) -> None:
    media = tmp_path / "media"
    settings.MEDIA_ROOT, settings.REPLAY_ROOT = media, media / "replays"  # type: ignore[attr-defined]
    workers.env["MEDIA_ROOT"] = str(media)
    entrants = [first_legal(GAME, "first"), first_legal(GAME, "second", delay=0.001)]
    entrants.append(uploaded(GAME, "crash", CRASHER))
    tournament = competition_actions.create_tournament(
        None, "cup", GAME, entrants, games_per_pairing=2, seed=7
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    workers.start("solo", processes=2)
    wait_for(lambda: finished(tournament), 180, "the tournament to finish")
    wait_for(lambda: Replay.objects.count() == 3, 30, "the replays")
    field_view.refresh(GAME)
    workers.stop_all()  # nothing writes while the copy is compared

    original = database_url(connection.settings_dict["NAME"])
    restored = database_url(fresh_database)
    backup = tmp_path / "backup"
    said = manage("backup", str(backup), DATABASE_URL=original, MEDIA_ROOT=str(media))
    assert "saved 3 matches (3 replays)" in said
    assert sorted(p.name for p in backup.iterdir()) == [
        "database.dump",
        "manifest.json",
        "media.tar",
    ]

    fresh_media = tmp_path / "restored-media"
    said = manage("restore", str(backup), DATABASE_URL=restored, MEDIA_ROOT=str(fresh_media))
    assert "restored 3 matches (3 replays)" in said
    for replay in Replay.objects.all():
        name = replay.name
        assert (fresh_media / "replays" / name).read_bytes() == (
            media / "replays" / name
        ).read_bytes()
    assert ratings(restored) == ratings(original)
    assert Rating.objects.count() == 3

    paths = pages_of(tournament)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    served = {"JUDGE_SANDBOX": "local"}
    with gunicorn(tmp_path / "a", workers=1, MEDIA_ROOT=str(media), **served) as port:
        before = fetch(port, paths)
    env = {"DATABASE_URL": restored, "MEDIA_ROOT": str(fresh_media), **served}
    with gunicorn(tmp_path / "b", workers=1, **env) as port:
        after = fetch(port, paths)
    assert all(status == 200 for status, _ in before.values()), {
        p: s for p, (s, _) in before.items() if s != 200
    }
    different = {path: (before[path], after[path]) for path in paths if before[path] != after[path]}
    assert different == {}

    # Restoring again over the restored site is refused, naming what to do.
    again = subprocess.run(
        [sys.executable, "manage.py", "restore", str(backup)],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": restored, "MEDIA_ROOT": str(tmp_path / "empty")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode != 0 and "is not empty: restore into a fresh one" in again.stderr


def finished(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status == Tournament.Status.FINISHED


def test_pg_dump_and_pg_restore_run_by_a_command_of_the_operators(
    transactional_db: None, fresh_database: str, tmp_path: Path
) -> None:
    """BACKUP_PG_DUMP / BACKUP_PG_RESTORE name a command that runs the programs elsewhere
    (the stack's container: docker exec -i ...): the dump comes on its standard output
    and goes back on the restore's standard input. ``nice`` stands for the elsewhere."""
    first_legal(GAME, "kept")
    original = connection.settings_dict["NAME"]
    media = tmp_path / "media"
    backup = tmp_path / "backup"
    said = manage(
        "backup",
        str(backup),
        DATABASE_URL=database_url(original),
        MEDIA_ROOT=str(media),
        BACKUP_PG_DUMP=f"nice pg_dump --dbname={original}",
    )
    assert "saved 0 matches (0 replays)" in said
    assert (backup / "database.dump").read_bytes()[:5] == b"PGDMP"
    manage(
        "restore",
        str(backup),
        DATABASE_URL=database_url(fresh_database),
        MEDIA_ROOT=str(tmp_path / "fresh"),
        BACKUP_PG_RESTORE=f"nice pg_restore --dbname={fresh_database}",
    )
    with psycopg.connect(database_url(fresh_database)) as db:
        names = db.execute("SELECT name FROM tournaments_bot").fetchall()
    assert names == [("kept",)]


def test_unpacked_media_takes_the_media_folders_owner(tmp_path: Path, settings: object) -> None:
    """Run as root (scripts/stack restore, into a volume the app's user owns), what is
    unpacked is the media folder's owner's, so that the web can write frames beside it."""
    assert os.geteuid() == 0, "this test runs as root, as scripts/stack restore does"
    source = tmp_path / "source"
    (source / "replays" / "000001").mkdir(parents=True)
    (source / "replays" / "000001" / "1.json.gz").write_bytes(b"\x1f\x8b replay")
    packed = tmp_path / "media.tar"
    with tarfile.open(packed, "w") as tar:
        tar.add(source / "replays", arcname="replays")
    media = tmp_path / "media"
    media.mkdir()
    os.chown(media, 10001, 10002)
    settings.MEDIA_ROOT = media  # type: ignore[attr-defined]
    backups.unpack_media(packed)
    unpacked = [media / "replays", media / "replays" / "000001", media / "replays/000001/1.json.gz"]
    assert [(p.stat().st_uid, p.stat().st_gid) for p in unpacked] == [(10001, 10002)] * 3
    assert unpacked[2].read_bytes() == b"\x1f\x8b replay"
