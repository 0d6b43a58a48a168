"""What staff do with a flag: dismiss it, or void the version's results and recompute.

Voiding takes every rated match the version played (a collusion flag's two versions) out
of the global ratings (the
match keeps its result, replay and seats: ``rated`` off and its place in the rating
order cleared, so ``recompute`` skips it), retires the version (it enters no new match
or tournament) and recomputes every rating from the history that is left, so its
opponents get back what they lost to it. The flag records the matches it voided, so the
decision can be read, and undone by hand, later. Nothing stored is deleted.

The recompute replays the whole history (docs/deploy.md: minutes at 500,000 matches);
the rating rows are locked meanwhile, so a worker's result waits for it rather than
being rated against a history that is being replaced.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from tournaments.models import BotVersion, FairPlayFlag, FieldPass, Match, Rating
from tournaments.rating.stored import recompute


class FlagClosed(ValueError):
    """The flag was already decided (voided); a second decision would be a mistake."""


@dataclass(frozen=True)
class Voided:
    """A voiding: the version, the matches taken out of the ratings, the bots whose
    rating the recompute changed."""

    version: int
    matches: list[int]
    ratings_changed: int


def dismiss(flag: FairPlayFlag, note: str = "") -> FairPlayFlag:
    """Staff found the flag unfounded: it stays, dismissed, with their note."""
    if flag.status == FairPlayFlag.Status.VOIDED:
        raise FlagClosed(f"flag {flag.pk} was voided already; its results are out of the ratings")
    flag.status = FairPlayFlag.Status.DISMISSED
    flag.note = _noted(flag.note, "dismissed", note)
    flag.save(update_fields=["status", "note", "updated_at"])
    return flag


@transaction.atomic
def void(flag: FairPlayFlag, note: str = "") -> Voided:
    """Void the flagged version's rated results and recompute the ratings (see above)."""
    flag = FairPlayFlag.objects.select_for_update().get(pk=flag.pk)
    if flag.status == FairPlayFlag.Status.VOIDED:
        raise FlagClosed(f"flag {flag.pk} was voided already; its results are out of the ratings")
    _lock_ratings()
    done = void_versions([flag.version, *([flag.partner] if flag.partner else [])])
    flag.status = FairPlayFlag.Status.VOIDED
    flag.note = _noted(flag.note, "voided", note)
    flag.evidence = {**flag.evidence, "voided_matches": done.matches}
    flag.save(update_fields=["status", "note", "evidence", "updated_at"])
    return done


def void_versions(versions: list[BotVersion]) -> Voided:
    """Take the versions' rated matches out of the ratings, retire them, recompute (inside
    the caller's transaction). A collusion flag voids both of its pair."""
    rated = Match.objects.filter(
        seats__version__in=versions, status=Match.Status.DONE, rating_seq__isnull=False
    )
    ids = sorted(set(rated.values_list("id", flat=True)))
    Match.objects.filter(pk__in=ids).update(rated=False, rating_seq=None)
    BotVersion.objects.filter(pk__in=[v.pk for v in versions]).update(retired=True)
    before = dict(Rating.objects.values_list("bot_id", "elo"))
    recompute.recompute_and_store()
    after = dict(Rating.objects.values_list("bot_id", "elo"))
    # The field view is refitted from the history left at the next beat (docs/deploy.md).
    FieldPass.objects.filter(game=versions[0].bot.game).delete()
    changed = sum(1 for bot, elo in after.items() if before.get(bot) != elo)
    changed += sum(1 for bot in before if bot not in after)
    return Voided(versions[0].pk, ids, changed)


def _lock_ratings() -> None:
    """Hold every rating row until the transaction ends (PostgreSQL; SQLite writes one
    transaction at a time anyway), so no result is rated during the recompute."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE tournaments_rating IN SHARE ROW EXCLUSIVE MODE")


def _noted(before: str, what: str, note: str) -> str:
    line = f"{timezone.now():%Y-%m-%d %H:%M} {what}" + (f": {note}" if note else "")
    return f"{before}\n{line}" if before else line
