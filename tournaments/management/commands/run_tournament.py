"""``manage.py run_tournament ID``: play a tournament here, in the foreground, with a bar.

For an operator: a draft is started, a cancelled one resumed, a running one finished
(matches whose worker vanished are taken back once their lease runs out). Celery workers,
if any, may play some of its matches at the same time; each is still played once. The
standings are printed at the end.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.errors import ServiceError
from tournaments.management.commands import _foreground
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Play a tournament in this process with a progress bar, then print its standings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament", type=int, help="the tournament's id")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        tournament_id = options["tournament"]
        if not Tournament.objects.filter(pk=tournament_id).exists():
            raise CommandError(
                f"there is no tournament {tournament_id}; the tournaments page lists them"
            )
        sandbox = _foreground.choose_sandbox(self.stderr.write)
        self.stderr.write(f"playing tournament {tournament_id} here (sandbox: {sandbox})")
        try:
            tournament = _foreground.play(tournament_id, progress=not options["no_progress"])
        except ServiceError as error:
            raise CommandError(str(error)) from None
        except KeyboardInterrupt:
            raise CommandError(
                f"interrupted; run_tournament {tournament_id} again finishes the tournament"
            ) from None
        for line in _foreground.standings_lines(tournament):
            self.stdout.write(line)
