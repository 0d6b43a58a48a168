"""``manage.py recompute_ratings [--write]``: every global rating again, from the match history.

Replays each rated, finished match in the order its rating update was made
(``rating_seq``) with the same update function, streaming the history (constant memory:
only the needed columns, fetched in chunks), showing progress (a bar on standard error,
and a line with the rate and the time left every ``--progress-every`` matches), and
reports every bot whose stored rating differs, then the time taken and the process's
peak memory. With ``--write``, the stored ratings and history are replaced. With
``--processes N`` the games are replayed in N worker processes (each game's ratings
depend on its matches only: the same result, up to N times as fast on N cores).
"""

from __future__ import annotations

import resource
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from tournaments.models import Match
from tournaments.rating.stored.recompute import Recomputed, recompute, recompute_and_store


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
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument(
            "--processes",
            type=int,
            default=1,
            help="replay the games in this many worker processes (PostgreSQL; default 1)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        every = max(1, options["progress_every"])
        total = Match.objects.filter(status=Match.Status.DONE, rating_seq__isnull=False).count()
        started = time.monotonic()
        bar = tqdm(
            total=total,
            desc="replaying",
            unit=" matches",
            file=sys.stderr,
            mininterval=1,
            disable=options["no_progress"],
        )

        def progress(done: int) -> None:
            bar.update(done - bar.n)
            if done % every == 0:
                self.stdout.write(_progress_line(done, total, time.monotonic() - started))
                self.stdout.flush()

        with bar:
            processes = max(1, options["processes"])
            if options["write"]:
                report = recompute_and_store(progress, every=1, processes=processes)
            else:
                report = recompute(progress=progress, every=1, processes=processes)
        self._report(report, time.monotonic() - started, options["write"])

    def _report(self, report: Recomputed, seconds: float, written: bool) -> None:
        for bot_id, (stored, fresh) in sorted(report.differences.items()):
            self.stdout.write(f"bot {bot_id}: stored {stored!r}, recomputed {fresh!r}")
        self.stdout.write(
            f"{report.matches} rated matches replayed; {len(report.ratings)} bots rated; "
            f"{len(report.differences)} differ; the records of "
            f"{len(report.record_differences)} bots differ; the first-rated flags of "
            f"{len(report.flag_differences)} versions differ"
        )
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.stdout.write(f"took {seconds:.0f} s; peak memory of this process {peak:.0f} MB")
        if written:
            self.stdout.write("stored the recomputed ratings")
        elif report.differences or report.record_differences or report.flag_differences:
            raise CommandError("stored ratings differ from the history; run with --write to fix")


def _progress_line(done: int, total: int, seconds: float) -> str:
    """``N matches replayed of TOTAL`` with the rate so far and the time it gives for the rest."""
    rate = done / seconds if seconds > 0 else 0.0
    left = (total - done) / rate if rate > 0 else 0.0
    pace = f"{rate:.0f} a second, about {left / 60:.0f} min left"
    return f"{done} matches replayed of {total} ({pace})"
