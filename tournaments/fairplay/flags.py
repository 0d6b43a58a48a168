"""Run the audits over the stored results and keep what they find as flags for staff.

One run audits every game (or the ones named), each over its whole history of finished
duplicate matches: a version's evidence only grows, so its test is taken on all of it.
Each flagged finding makes or refreshes its FairPlayFlag (evidence, statistic,
threshold, ``current``); a flag the run no longer finds beyond the threshold stays, with
``current`` off, so nothing staff were shown disappears. A flag's status (open,
dismissed, voided) is staff's and no run changes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction

from judge.games import GAMES
from tournaments.fairplay import rotation_order, significance, stored
from tournaments.models import BotVersion, FairPlayFlag


@dataclass(frozen=True)
class GameAudit:
    """What one game's run found: versions tested, flags made or refreshed."""

    game: str
    tested: int
    flagged: list[int]
    seconds: float = 0.0


def audit_rotations(game: str, alpha: float = significance.ALPHA) -> GameAudit:
    """The rotation-order audit of ``game``'s stored results, its flags written."""
    findings = rotation_order.audit(
        stored.finished(game), honest=stored.house_versions(game), alpha=alpha
    )
    hits = [f for f in findings.values() if f.flagged]
    with transaction.atomic():
        _keep(game, FairPlayFlag.Kind.ROTATION, hits)
    return GameAudit(game, len(findings), sorted(f.version for f in hits))


def _keep(game: str, kind: str, hits: Iterable[rotation_order.Finding]) -> None:
    """Make or refresh the flags of ``hits``; the game's other flags of this kind are no
    longer current."""
    found = {f.version: f for f in hits}
    existing = {
        flag.version_id: flag
        for flag in FairPlayFlag.objects.select_for_update().filter(
            game=game, kind=kind, partner__isnull=True
        )
    }
    versions = BotVersion.objects.in_bulk(list(found))
    for version_id, finding in found.items():
        flag = existing.get(version_id) or FairPlayFlag(
            game=game, kind=kind, version=versions[version_id]
        )
        flag.current = True
        flag.statistic, flag.p_value, flag.threshold = finding.t, finding.p, finding.threshold
        flag.effect, flag.deals, flag.matches = finding.gain, finding.deals, finding.matches
        flag.evidence = {**flag.evidence, **finding.to_json()}
        flag.save()
    stale = [pk for version_id, pk in _ids(existing).items() if version_id not in found]
    FairPlayFlag.objects.filter(pk__in=stale).update(current=False)


def _ids(flags: dict[int, FairPlayFlag]) -> dict[int, int]:
    return {version_id: flag.pk for version_id, flag in flags.items()}


def audit_all(
    games: Iterable[str] | None = None, alpha: float = significance.ALPHA
) -> list[GameAudit]:
    """Every audit of every game (or of ``games``)."""
    return [audit_rotations(game, alpha) for game in (games or sorted(GAMES))]
