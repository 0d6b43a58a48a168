"""Backup and restore of a big site, and what a site keeps per match.

Seeds two PostgreSQL databases with real-shaped sites (bench/service/_seeded_site.py: a
baseline of 5,000 matches and 50,000 by default, each with its replay files in a media
folder of its own), then times ``manage.py backup`` (pg_dump, then the media folder into
a tar) and ``manage.py restore`` into a fresh database and a fresh media folder (each a
process of its own, as an operator runs them) on both, and prints the times, the
backup's size and the ratios against the baseline. Before that it prints what the site
keeps per match: every table's bytes (rows and indexes) and the replay files' bytes.

Run: ``python -m bench.service.backup [--matches N] [--baseline N]``; needs PostgreSQL's
client programs (pg_dump, pg_restore) of the server's version. The scratch databases and
folders are removed at the end.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._service import configure

ROOT = Path(__file__).resolve().parents[2]


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def database_url(name: str) -> str:
    from django.db import connection

    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{name}"


def manage(*args: str, **env: str) -> tuple[float, str]:
    """Run manage.py in a process of its own; its wall seconds and what it said."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return time.perf_counter() - began, (done.stdout + done.stderr).strip()


def table_sizes(matches: int) -> list[tuple[str, float]]:
    """Every table of the current database with its bytes per match (rows, indexes,
    TOAST), largest first."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC"
        )
        return [(name, size / matches) for name, size in cursor.fetchall()]


def folder_bytes(folder: Path) -> tuple[int, int, int]:
    """Files, their bytes, and the disk they take (whole blocks)."""
    files = size = disk = 0
    for root, _, names in os.walk(folder):
        for name in names:
            stat = os.stat(os.path.join(root, name))
            files, size, disk = files + 1, size + stat.st_size, disk + stat.st_blocks * 512
    return files, size, disk


def seed_site(size: int, media: Path) -> str:
    """A scratch database of ``size`` seeded matches with its replays under ``media``;
    its name."""
    from django.conf import settings
    from django.db import connection

    from bench.service._seeded_site import Shape, seed

    name = f"bench_backup_{os.getpid()}_{size}"
    connection.settings_dict["TEST"]["NAME"] = name
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    settings.MEDIA_ROOT, settings.REPLAY_ROOT = media, media / "replays"
    began = time.perf_counter()
    seed(Shape(size), processes=2)
    print(f"seeded {size:,} matches in {time.perf_counter() - began:.0f} s", flush=True)
    return name


def report_growth(size: int, media: Path) -> None:
    from tournaments.models import Match

    matches = Match.objects.count()
    tables = table_sizes(matches)
    total = sum(per for _, per in tables)
    print(f"\nkept per match at {size:,} matches (load {load_average()}):")
    print(f"  database, all tables with their indexes: {total / 1024:.2f} KB")
    for name, per in tables[:12]:
        print(f"    {name:40s} {per:9.0f} bytes")
    files, size_bytes, disk = folder_bytes(media)
    print(
        f"  media folder: {files:,} files, {size_bytes / matches / 1024:.2f} KB per match "
        f"({disk / matches / 1024:.2f} KB on disk)"
    )


def drop(name: str) -> None:
    from django.db import connection

    with connection._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def create(name: str) -> None:
    from django.db import connection

    with connection._nodb_cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')


def backup_and_restore(name: str, media: Path, work: Path) -> dict[str, float]:
    """Back the site up and restore it into a fresh database and media folder; seconds
    of each, and the backup's bytes."""
    from django.db import connection

    connection.close()
    folder = work / f"backup-{name}"
    seconds, said = manage(
        "backup", str(folder), DATABASE_URL=database_url(name), MEDIA_ROOT=str(media)
    )
    print(f"  backup: {seconds:.1f} s: {said}", flush=True)
    restored = f"{name}_restored"
    create(restored)
    try:
        fresh = work / f"media-{restored}"
        back, said = manage(
            "restore", str(folder), DATABASE_URL=database_url(restored), MEDIA_ROOT=str(fresh)
        )
        print(f"  restore: {back:.1f} s: {said}", flush=True)
    finally:
        drop(restored)
    _, size, _ = folder_bytes(folder)
    return {"backup": seconds, "restore": back, "bytes": float(size)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--baseline", type=int, default=5_000)
    args = parser.parse_args()
    configure("bench_backup", broker="", sandbox="local")
    from django.db import connection

    original = connection.settings_dict["NAME"]
    print(f"load average at the start: {load_average()}", flush=True)
    figures = {}
    with tempfile.TemporaryDirectory(prefix="bench-backup-") as folder:
        work = Path(folder)
        for size in (args.baseline, args.matches):
            media = work / f"media-{size}"
            name = seed_site(size, media)
            try:
                report_growth(size, media)
                print(f"\nbackup and restore of {size:,} matches (load {load_average()}):")
                figures[size] = backup_and_restore(name, media, work)
            finally:
                connection.close()
                connection.settings_dict["NAME"] = original
                drop(name)
    small, big = figures[args.baseline], figures[args.matches]
    print(f"\n{'':10s} {args.baseline:>12,} {args.matches:>12,}  ratio")
    for key in ("backup", "restore"):
        print(f"{key + ' s':10s} {small[key]:12.1f} {big[key]:12.1f}  {big[key] / small[key]:.2f}")
    mb = (small["bytes"] / 2**20, big["bytes"] / 2**20)
    print(f"{'size MB':10s} {mb[0]:12.1f} {mb[1]:12.1f}  {mb[1] / mb[0]:.2f}")
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
