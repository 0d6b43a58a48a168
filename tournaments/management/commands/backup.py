"""``manage.py backup FOLDER``: the database and the media folder (replays) saved into a
new folder, with a manifest (tournaments.play.backups; docs/deploy.md, "Backups")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.play import backups


class Command(BaseCommand):
    help = "Save the database and the media folder (replays) into a new folder."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path, help="a new (or empty) folder for the backup")

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        try:
            manifest, timed = backups.backup(folder)
        except backups.BackupError as error:
            raise CommandError(str(error)) from error
        found = manifest["counts"]
        files = ", ".join(
            f"{name} {info['bytes']:,} bytes" for name, info in manifest["files"].items()
        )
        self.stdout.write(
            f"saved {found['matches']:,} matches ({found['replays']:,} replays) into {folder}: "
            f"{files}; " + ", ".join(f"{step} {s:.1f} s" for step, s in timed.steps.items())
        )
        if not manifest["replays_in_media"]:
            self.stderr.write(
                "the replays are not in the media folder (REPLAY_STORAGE): back up their "
                "bucket by its own means"
            )
