"""``manage.py load_seeds [--game GAME]``: store the house bots and the example bots.

Safe to run again: nothing is stored twice (see ``_seeds``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from judge.games import GAMES
from tournaments.management.commands import _seeds


class Command(BaseCommand):
    help = "Store the house bots and the example bots of seeds/ (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game", action="append", choices=sorted(GAMES), help="only this game (repeatable)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        loaded = _seeds.load(options["game"])
        stored = 0
        for game, bots in loaded.items():
            names = ", ".join(f"{item.version.bot.name} v{item.version.number}" for item in bots)
            self.stdout.write(f"{game}: {names}")
            stored += sum(item.new for item in bots)
        total = sum(len(bots) for bots in loaded.values())
        self.stdout.write(f"{total} seed bots; {stored} new versions stored")
