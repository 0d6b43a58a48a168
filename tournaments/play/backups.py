"""Backups of a site: the database and the media folder (replay files, their frames),
written to a folder and restored from it into a fresh database and media folder
(manage.py backup / restore; docs/deploy.md, "Backups").

A backup folder holds ``database.dump`` (pg_dump's custom format; SQLite:
``database.sqlite3``, a copy made by SQLite's backup API), ``media.tar`` (the media
folder, uncompressed: the replays are gzip already) and ``manifest.json`` (what was
saved: each file's size and SHA-256, the rows counted, the migrations applied). The
database is saved first, then the files: every replay row in the dump has its file by
then (a file is written before its row commits); files written later are extra, never
missing. Redis is not saved: it holds the queue, which the database rebuilds
(``manage.py resend_queued``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from tournaments.models import Bot, BotVersion, Match, Rating, Replay, Tournament

FORMAT = 1
MANIFEST = "manifest.json"
POSTGRES_DUMP = "database.dump"
SQLITE_COPY = "database.sqlite3"
MEDIA_TAR = "media.tar"
#: Bytes read at a time when hashing.
CHUNK = 1 << 20


class BackupError(RuntimeError):
    """A backup or restore that cannot go on; the message says why and what to do."""


@dataclass
class Timed:
    """Seconds each step took, in order, for the operator (and the benchmark)."""

    steps: dict[str, float]

    def run(self, name: str, step: Callable[[], Any]) -> Any:
        began = time.perf_counter()
        try:
            return step()
        finally:
            self.steps[name] = time.perf_counter() - began


def counts(cursor: Any) -> dict[str, int]:
    """Rows a restore must find again, read through ``cursor`` (the dump's snapshot, or
    the SQLite copy, or the restored database)."""
    done = Match.Status.DONE
    tables: dict[str, tuple[type[Any], str]] = {
        "matches": (Match, ""),
        "matches_done": (Match, f" WHERE status = '{done}'"),
        "replays": (Replay, ""),
        "bots": (Bot, ""),
        "versions": (BotVersion, ""),
        "tournaments": (Tournament, ""),
        "ratings": (Rating, ""),
    }
    found = {}
    for name, (model, where) in tables.items():
        cursor.execute(f"SELECT COUNT(*) FROM {model._meta.db_table}{where}")
        found[name] = int(cursor.fetchone()[0])
    return found


def migrations_applied(cursor: Any) -> list[str]:
    cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
    return [f"{app}.{name}" for app, name in cursor.fetchall()]


def replays_in_media() -> bool:
    """Whether the replay files live in the media folder (the default storage): otherwise
    they are in a bucket, which the operator backs up by its own means."""
    kind = import_string(settings.REPLAY_STORAGE)
    inside = (
        Path(settings.REPLAY_ROOT).resolve().is_relative_to(Path(settings.MEDIA_ROOT).resolve())
    )
    return issubclass(kind, FileSystemStorage) and inside


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def postgres_env() -> dict[str, str]:
    """libpq's environment for the configured database (the password never on a command
    line, where other users could read it)."""
    db = connection.settings_dict
    wanted = {
        "PGHOST": db.get("HOST") or "",
        "PGPORT": str(db.get("PORT") or ""),
        "PGUSER": db.get("USER") or "",
        "PGPASSWORD": db.get("PASSWORD") or "",
        "PGDATABASE": db["NAME"],
    }
    return {**os.environ, **{key: value for key, value in wanted.items() if value}}


def tool(setting: str) -> list[str]:
    """The pg_dump or pg_restore to run: BACKUP_PG_DUMP / BACKUP_PG_RESTORE, a program
    here or a command that runs one elsewhere (``docker exec -i CONTAINER pg_dump -U judge
    -d judge``: the stack's own, when this host has none)."""
    return shlex.split(str(getattr(settings, setting)))


def local(command: list[str]) -> bool:
    """Whether ``command`` is the program alone, run here against DATABASE_URL."""
    return len(command) == 1


def run_tool(command: list[str], stdin: Path | None = None, stdout: Path | None = None) -> None:
    """Run pg_dump or pg_restore (its input or output a file, for one run elsewhere); a
    missing program or a failure says what to do."""
    if shutil.which(command[0]) is None:
        raise BackupError(
            f"{command[0]} is not installed here: install PostgreSQL's client programs "
            "(Debian: apt-get install postgresql-client, of the server's major version or "
            "newer), or name a command that runs them (BACKUP_PG_DUMP, BACKUP_PG_RESTORE)"
        )
    with contextlib.ExitStack() as files:
        source = files.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        sink = files.enter_context(stdout.open("wb")) if stdout else subprocess.DEVNULL
        done = subprocess.run(
            command, env=postgres_env(), stdin=source, stdout=sink, stderr=subprocess.PIPE
        )
    if done.returncode != 0:
        error = done.stderr.decode(errors="replace").strip()
        raise BackupError(f"{command[0]} failed ({done.returncode}): {error}")


# Backing up.


def backup(folder: Path) -> tuple[dict[str, Any], Timed]:
    """Save the database, then the media folder, into ``folder`` (new or empty), and
    its manifest; the manifest and the steps' times."""
    if folder.exists() and any(folder.iterdir()):
        raise BackupError(f"{folder} is not empty: give a new folder for each backup")
    folder.mkdir(parents=True, exist_ok=True)
    timed = Timed({})
    if connection.vendor == "postgresql":
        found, migrations = timed.run("database", lambda: dump_postgres(folder / POSTGRES_DUMP))
    elif connection.vendor == "sqlite":
        found, migrations = timed.run("database", lambda: copy_sqlite(folder / SQLITE_COPY))
    else:
        raise BackupError(f"backups of {connection.vendor} are not supported (PostgreSQL, SQLite)")
    timed.run("media", lambda: pack_media(folder / MEDIA_TAR))
    manifest = {
        "format": FORMAT,
        "created_at": timezone.now().isoformat(),
        "database": connection.vendor,
        "counts": found,
        "migrations": migrations,
        "replays_in_media": replays_in_media(),
        "files": {},
    }
    files: dict[str, Any] = {}
    for path in sorted(folder.iterdir()):
        files[path.name] = {"bytes": path.stat().st_size, "sha256": sha256(path)}
    manifest["files"] = files
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest, timed


def dump_postgres(target: Path) -> tuple[dict[str, int], list[str]]:
    """pg_dump of one snapshot, whose rows are counted in the same snapshot (a live site
    writes meanwhile: the manifest says what the dump holds, not what came after)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
        found, migrations = counts(cursor), migrations_applied(cursor)
        command = [*tool("BACKUP_PG_DUMP"), "--format=custom", "--no-owner", "--no-privileges"]
        run_tool([*command, f"--snapshot={snapshot}"], stdout=target)
    return found, migrations


def copy_sqlite(target: Path) -> tuple[dict[str, int], list[str]]:
    """A consistent copy of the SQLite database while others write (its backup API),
    counted in the copy."""
    connection.ensure_connection()
    with sqlite3.connect(target) as copy:
        connection.connection.backup(copy)
        cursor = copy.cursor()
        found, migrations = counts(cursor), migrations_applied(cursor)
    copy.close()
    return found, migrations


def pack_media(target: Path) -> None:
    """The media folder as a tar (names relative to it); an empty tar when it is absent."""
    root = Path(settings.MEDIA_ROOT)
    with tarfile.open(target, "w") as tar:
        if root.is_dir():
            for entry in sorted(root.iterdir()):
                tar.add(entry, arcname=entry.name)


# Restoring.


def read_manifest(folder: Path) -> dict[str, Any]:
    """The backup's manifest, its files checked against it (size and SHA-256)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise BackupError(f"{folder} has no {MANIFEST}: not a backup made by manage.py backup")
    manifest: dict[str, Any] = json.loads(path.read_text())
    if manifest.get("format") != FORMAT:
        raise BackupError(f"backup format {manifest.get('format')!r}: this version reads {FORMAT}")
    for name, expected in manifest["files"].items():
        file = folder / name
        if not file.is_file() or file.stat().st_size != expected["bytes"]:
            raise BackupError(f"{file} is missing or its size changed: the backup is damaged")
        if sha256(file) != expected["sha256"]:
            raise BackupError(f"{file} does not match its SHA-256: the backup is damaged")
    return manifest


def database_is_empty() -> bool:
    """No table of this service's in the configured database (a fresh one)."""
    return "django_migrations" not in connection.introspection.table_names()


def media_is_empty() -> bool:
    root = Path(settings.MEDIA_ROOT)
    return not root.exists() or not any(root.iterdir())


def restore(folder: Path, jobs: int = 2) -> tuple[dict[str, int], Timed]:
    """Restore the backup in ``folder`` into the configured database and media folder,
    both fresh (BackupError otherwise); the rows found after it, and the steps' times.
    Migrations newer than the backup are applied by the caller (manage.py restore)."""
    timed = Timed({})
    manifest = timed.run("check", lambda: read_manifest(folder))
    if manifest["database"] != connection.vendor:
        raise BackupError(
            f"the backup is of {manifest['database']}, the configured database is "
            f"{connection.vendor}: restore it into a {manifest['database']} database"
        )
    if not database_is_empty():
        fresh = "createdb NAME" if connection.vendor == "postgresql" else "a new file"
        raise BackupError(
            f"the database {connection.settings_dict['NAME']!r} is not empty: restore into a "
            f"fresh one ({fresh}; DATABASE_URL naming it)"
        )
    if not media_is_empty():
        raise BackupError(
            f"the media folder {settings.MEDIA_ROOT} is not empty: restore into a fresh one "
            "(MEDIA_ROOT naming a new folder)"
        )
    if connection.vendor == "postgresql":
        connection.close()  # pg_restore writes; this process reads again afterwards
        program = tool("BACKUP_PG_RESTORE")
        command = [*program, "--no-owner", "--no-privileges", "--exit-on-error"]
        dump = folder / POSTGRES_DUMP
        if local(program):  # parallel jobs read the file; elsewhere it comes on stdin
            command += [f"--jobs={max(1, jobs)}", f"--dbname={connection.settings_dict['NAME']}"]
            timed.run("database", lambda: run_tool([*command, str(dump)]))
        else:
            timed.run("database", lambda: run_tool(command, stdin=dump))
    else:
        target = Path(connection.settings_dict["NAME"])
        connection.close()
        timed.run("database", lambda: shutil.copyfile(folder / SQLITE_COPY, target))
    timed.run("media", lambda: unpack_media(folder / MEDIA_TAR))
    with connection.cursor() as cursor:
        return counts(cursor), timed


def unpack_media(source: Path) -> None:
    """The media files into MEDIA_ROOT. Run as root, every unpacked file and folder gets
    the media folder's owner: a stack's volume is its app user's (scripts/stack restore
    unpacks it from the host as root), and the web writes the viewer's frames there."""
    root = Path(settings.MEDIA_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    with tarfile.open(source) as tar:
        tar.extractall(root, filter="data")  # no links out, no absolute names
    owner = root.stat()
    if os.geteuid() == 0 and (owner.st_uid, owner.st_gid) != (0, 0):
        for path in root.rglob("*"):
            os.lchown(path, owner.st_uid, owner.st_gid)
