"""``manage.py recompute_ratings [--write]``: every global Elo again, from the match history.

Replays each rated, finished match in the order its rating update was made
(``rating_seq``) with the same update function, and reports every bot whose stored
rating differs. With ``--write``, the stored ratings and history are replaced.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.ratings_store import recompute, store_recomputed


class Command(BaseCommand):
    help = "Recompute every global Elo from the match history and compare with the stored ones."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--write", action="store_true", help="store the recomputed ratings and history"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = recompute()
        for bot_id, (stored, fresh) in sorted(report.differences.items()):
            self.stdout.write(f"bot {bot_id}: stored {stored!r}, recomputed {fresh!r}")
        self.stdout.write(
            f"{report.matches} rated matches replayed; {len(report.ratings)} bots rated; "
            f"{len(report.differences)} differ"
        )
        if options["write"]:
            store_recomputed(report)
            self.stdout.write("stored the recomputed ratings")
        elif report.differences:
            raise CommandError("stored ratings differ from the history; run with --write to fix")
