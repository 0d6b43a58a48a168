"""``manage.py recompute_ratings [--write]``: every global rating again, from the match history.

Replays each rated, finished match in the order its rating update was made
(``rating_seq``) with the same update function, streaming the history (constant memory:
only the needed columns, fetched in chunks), printing progress, and reports every bot
whose stored rating differs. With ``--write``, the stored ratings and history are replaced.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.rating.recompute import recompute, recompute_and_store


class Command(BaseCommand):
    help = "Recompute every global rating from the match history and compare with the stored ones."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--write", action="store_true", help="store the recomputed ratings and history"
        )
        parser.add_argument(
            "--progress-every",
            type=int,
            default=50_000,
            help="print a progress line every this many matches (default 50000)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        every = max(1, options["progress_every"])

        def progress(done: int) -> None:
            self.stdout.write(f"{done} matches replayed")
            self.stdout.flush()

        if options["write"]:
            report = recompute_and_store(progress, every)
        else:
            report = recompute(progress=progress, every=every)
        for bot_id, (stored, fresh) in sorted(report.differences.items()):
            self.stdout.write(f"bot {bot_id}: stored {stored!r}, recomputed {fresh!r}")
        self.stdout.write(
            f"{report.matches} rated matches replayed; {len(report.ratings)} bots rated; "
            f"{len(report.differences)} differ; the records of "
            f"{len(report.record_differences)} bots differ; the first-rated flags of "
            f"{len(report.flag_differences)} versions differ"
        )
        if options["write"]:
            self.stdout.write("stored the recomputed ratings")
        elif report.differences or report.record_differences or report.flag_differences:
            raise CommandError("stored ratings differ from the history; run with --write to fix")
