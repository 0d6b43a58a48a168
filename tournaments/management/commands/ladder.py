"""``manage.py ladder``: the continuous ladder of each game, for operators.

manage.py ladder status          each game's ladder: on or paused, entrants, in flight
manage.py ladder plan [--game G] [--tables N]
                                 what the scheduler would play next, and why
manage.py ladder pause GAME      stop making ladder matches of GAME (queued ones are
                                 cancelled; a running one finishes)
manage.py ladder resume GAME
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count

from judge.games import GAMES
from tournaments.competitions import competition_actions, ladder
from tournaments.models import BotVersion
from tournaments.play import dispatch

RULE = (
    "The next tables are those whose results are expected to narrow the intervals of the "
    "differences between their players most\n(docs/ladder.md); each seat is 'rating "
    "±deviation now -> ±expected after', the gain is in Elo of those intervals.\nShown on "
    "the ratings themselves; the ladder chooses on ratings drawn around each (two "
    "deviations wide), so the tables it plays vary around these."
)


class Command(BaseCommand):
    help = "Show, plan, pause or resume the continuous ladder of each game."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("status", help="each game's ladder")
        plan = actions.add_parser("plan", help="the next tables and why")
        plan.add_argument("--game", choices=sorted(GAMES), action="append")
        plan.add_argument("--tables", type=int, default=3, help="tables per game (1-50)")
        for name in ("pause", "resume"):
            action = actions.add_parser(name, help=f"{name} a game's ladder")
            action.add_argument("game", choices=sorted(GAMES))

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "status":
            self.status()
        elif action == "plan":
            if not 1 <= options["tables"] <= 50:
                raise CommandError("--tables: between 1 and 50")
            self.stdout.write(RULE)
            for game in options["game"] or sorted(GAMES):
                self.show_plan(game, options["tables"])
        else:
            row = competition_actions.pause_ladder(options["game"], paused=action == "pause")
            self.stdout.write(f"{row.game}: {'paused' if row.paused else 'playing'}")

    def status(self) -> None:
        enabled = "on" if settings.LADDER_ENABLED else "off (LADDER_ENABLED=false)"
        processes = dispatch.capacity()
        share = f"at most {settings.LADDER_SLOTS}" if settings.LADDER_SLOTS else "what is left"
        self.stdout.write(
            f"ladder {enabled}; {share} of the {dispatch.batch_limit(processes)} batch "
            f"processes of the {processes} the live workers have; settled at a deviation of "
            f"{settings.LADDER_TARGET_DEVIATION:g} Elo"
        )
        counts = dict(
            ladder.ladder_matches()
            .values("game")
            .annotate(n=Count("id"))
            .values_list("game", "n")
            .order_by()
        )
        for game in sorted(GAMES):
            row = ladder.ladder_of(game)
            active = ladder.ladder_matches().filter(game=game, status__in=ladder.ACTIVE).count()
            self.stdout.write(
                f"  {game}: {'paused' if row.paused else 'playing'}, "
                f"{len(ladder.entrants(game))} entrants, {active} in flight, "
                f"{counts.get(game, 0)} matches in all"
            )

    def show_plan(self, game: str, tables: int) -> None:
        plan = ladder.plan(game, tables, explore=None)
        self.stdout.write(
            f"{game}: tables of {plan.size or '-'}, {plan.entrants} entrants, "
            f"{plan.busy} playing now{'; ' + plan.note if plan.note else ''}"
        )
        names = {
            v.pk: f"{v.bot.name} v{v.number}"
            for v in BotVersion.objects.filter(
                pk__in=[p.key for pick in plan.picks for p in pick.seats]
            ).select_related("bot")
        }
        for number, pick in enumerate(plan.picks, 1):
            seats = ", ".join(
                f"{names[p.key]} ({p.mu:.0f} ±{p.sigma:.0f} -> ±{after:.0f}, {p.games} played)"
                for p, after in zip(pick.seats, pick.after, strict=True)
            )
            self.stdout.write(f"  {number}. {seats}: expected interval gain {pick.gain:.1f}")
