"""``manage.py audit_fair_play [--game GAME] [--alpha A]``: run the fair-play audits over
the stored results now (Celery beat runs them every FAIR_PLAY_AUDIT_SECONDS) and print
what they found: each game's versions tested and flagged, with the evidence of each flag.
Staff decide in the admin or the API (docs/fair-play.md)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge.games import GAMES
from tournaments.fairplay import flags, significance
from tournaments.models import FairPlayFlag


class Command(BaseCommand):
    help = "Run the fair-play audits over the stored results and print the flags."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", help="only this game (repeatable)")
        parser.add_argument(
            "--alpha",
            type=float,
            default=significance.ALPHA,
            help=f"family-wise error per game and audit (default {significance.ALPHA})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        games = options["game"] or sorted(GAMES)
        unknown = sorted(set(games) - set(GAMES))
        if unknown:
            raise CommandError(f"no game {unknown[0]!r}; choose from {', '.join(sorted(GAMES))}")
        if not 0 < options["alpha"] < 1:
            raise CommandError(f"--alpha must be between 0 and 1, not {options['alpha']}")
        for game in games:
            started = time.monotonic()
            found = flags.audit_rotations(game, options["alpha"])
            self.stdout.write(
                f"{game}: rotation order: {found.tested} versions tested, "
                f"{len(found.flagged)} flagged ({time.monotonic() - started:.1f} s)"
            )
            for flag in FairPlayFlag.objects.filter(
                game=game, version_id__in=found.flagged, kind=FairPlayFlag.Kind.ROTATION
            ).select_related("version__bot"):
                self.stdout.write(f"  {describe(flag)}")
            started = time.monotonic()
            pairs = flags.audit_collusion(game, options["alpha"])
            current = FairPlayFlag.objects.filter(
                game=game, kind=FairPlayFlag.Kind.COLLUSION, current=True
            ).select_related("version__bot", "partner__bot")
            self.stdout.write(
                f"{game}: collusion: {pairs.tested} pairs tested, {current.count()} flagged "
                f"({time.monotonic() - started:.1f} s)"
            )
            for flag in current:
                self.stdout.write(f"  {describe_pair(flag)}")


def describe(flag: FairPlayFlag) -> str:
    """One line of a flag's evidence."""
    e = flag.evidence
    return (
        f"flag {flag.pk} ({flag.status}): {flag.version} gains {flag.effect:+.2f} a deal "
        f"in later rotations (t {flag.statistic:.2f}, p {flag.p_value:.2g} <= "
        f"{flag.threshold:.2g}) over {flag.deals} deals in {flag.matches} matches, better in "
        f"{e.get('better', '?')} and worse in {e.get('worse', '?')}; matches "
        f"{', '.join(map(str, e.get('evidence', [])[:5]))}"
    )


def describe_pair(flag: FairPlayFlag) -> str:
    """One line of a collusion flag's evidence."""
    tests = ", ".join(
        f"{t['test']} {t['effect']:+.2f} (t {t['t']:.2f}, p {t['p']:.2g})"
        for t in flag.evidence.get("tests", [])
    )
    return (
        f"flag {flag.pk} ({flag.status}): {flag.version} with {flag.partner} over "
        f"{flag.deals} deals in {flag.matches} matches: {tests}"
    )
