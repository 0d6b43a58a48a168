"""``manage.py restore FOLDER``: a backup of ``manage.py backup`` restored into a fresh
database and a fresh media folder, then migrated to this code's schema and checked
against its manifest (tournaments.play.backups; docs/deploy.md, "Backups")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.play import backups


class Command(BaseCommand):
    help = "Restore a backup folder into a fresh database and media folder."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path, help="a folder written by manage.py backup")
        parser.add_argument(
            "--jobs", type=int, default=2, help="pg_restore's parallel jobs (default 2)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        try:
            found, timed = backups.restore(folder, jobs=options["jobs"])
        except backups.BackupError as error:
            raise CommandError(str(error)) from error
        manifest = backups.read_manifest(folder)
        timed.run("migrate", lambda: call_command("migrate", interactive=False, verbosity=0))
        expected = manifest["counts"]
        if found != expected:
            raise CommandError(f"restored rows {found} differ from the backup's {expected}")
        self.stdout.write(
            f"restored {found['matches']:,} matches ({found['replays']:,} replays) from "
            f"{folder}: " + ", ".join(f"{step} {s:.1f} s" for step, s in timed.steps.items())
        )
