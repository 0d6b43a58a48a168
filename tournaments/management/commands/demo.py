"""``manage.py demo``: the first run's tournaments, a round robin of the seed bots per game.

Loads the seed bots, then for each game plays (or finishes) the demo tournament with a
progress bar and prints its standings, then a duel of two house bots the first game names
(``Game.demo_duel``, _duel_demo.py) to its decision, with its page's address;
with ``--by-workers`` (scripts/run) the Celery
workers play it and the bar follows them. Run again, it reuses a demo whose entrants are
still the current seed versions, finishing it if it was interrupted, so a second run
costs seconds; ``--fresh`` plays new ones.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge.games import GAMES, game_class
from tournaments.competitions import competition_actions
from tournaments.management.commands import _duel_demo, _foreground, _seeds
from tournaments.models import BotVersion, Tournament

DEMO_SEED = 2026
#: Where scripts/run serves the web UI (its ADDR), for the duel page's address.
ADDRESS = os.environ.get("ADDR", "127.0.0.1:8000")


def demo_name(game: str) -> str:
    return f"Demo: {game}"


def find_or_create(game: str, entrants: list[BotVersion], fresh: bool) -> Tournament:
    """The demo of ``game`` with exactly these entrants, or a new one."""
    wanted = sorted(v.pk for v in entrants)
    if not fresh:
        for tournament in Tournament.objects.filter(
            owner=None, game=game, name=demo_name(game)
        ).order_by("-id"):
            if sorted(tournament.participants.values_list("id", flat=True)) == wanted:
                return tournament
    return competition_actions.create_tournament(
        None, demo_name(game), game, entrants, seed=DEMO_SEED, **game_class(game).demo_format
    )


class Command(BaseCommand):
    help = "Load the seed bots and play a round robin of them for each game (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game", action="append", choices=sorted(GAMES), help="only this game (repeatable)"
        )
        parser.add_argument("--fresh", action="store_true", help="play new demo tournaments")
        parser.add_argument("--no-progress", action="store_true", help="no progress bars")
        parser.add_argument("--no-duel", action="store_true", help="skip the demo duel")
        parser.add_argument(
            "--by-workers",
            action="store_true",
            help="the Celery workers play the matches; this command follows them (scripts/run)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        by_workers = options["by_workers"]
        if not by_workers:
            sandbox = _foreground.choose_sandbox(self.stderr.write)
            self.stderr.write(f"bots run in the {sandbox} sandbox")
        play = _foreground.follow if by_workers else _foreground.play
        games = options["game"] or list(GAMES)
        demos = [
            find_or_create(game, _seeds.current_versions(game), options["fresh"]) for game in games
        ]
        if by_workers:
            # All started at once: their matches wait in schedule order, one game after
            # the other, and the ladder (which only takes a slot no waiting tournament
            # match gets) plays once the last demo match is under way.
            demos = [_foreground.start(tournament) for tournament in demos]
        duel = None
        duel_game = None if options["no_duel"] else _duel_demo.demo_game(games)
        if duel_game is not None:
            duel = _duel_demo.find_or_start(duel_game, options["fresh"])  # played beside the demos
        tables = []
        for game, tournament in zip(games, demos, strict=True):
            if tournament.status == Tournament.Status.FINISHED:
                self.stderr.write(f"{game}: reusing finished tournament #{tournament.pk}")
            try:
                tournament = play(tournament.pk, progress=not options["no_progress"])
            except KeyboardInterrupt:
                raise CommandError("interrupted; run it again to finish the demo") from None
            tables.append(_foreground.standings_lines(tournament))
        if duel is not None:
            challenger, baseline = _duel_demo.contenders(duel.game)
            self.stderr.write(f"duel #{duel.pk}: {challenger} against {baseline}")
            follow = _duel_demo.follow if by_workers else _duel_demo.play
            tables.append(_duel_demo.summary(follow(duel, self.stderr.write), ADDRESS))
        self.stdout.write("")
        for lines in tables:
            self.stdout.write("\n".join(lines) + "\n")
