"""Run the audits over the stored results and keep what they find as flags for staff.
(The rotation-order audit flags a version; the collusion audit a pair: its version is the
one that gained, its partner the other.)

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
from tournaments.fairplay import collusion, rotation_order, significance, stored
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


def audit_collusion(game: str, alpha: float = significance.ALPHA) -> GameAudit:
    """The collusion audit of ``game``'s stored results at tables of three or more seats,
    its flags written (one per pair: the version of the pair that gained is ``version``,
    its partner ``partner``; both tests' findings in the evidence)."""
    findings = collusion.audit(stored.finished(game, duplicate=False), alpha=alpha)
    hits: dict[tuple[int, int], list[collusion.PairFinding]] = {}
    for finding in findings:
        if finding.flagged:
            hits.setdefault((finding.a, finding.b), []).append(finding)
    with transaction.atomic():
        existing = {
            (flag.version_id, flag.partner_id): flag
            for flag in FairPlayFlag.objects.select_for_update().filter(
                game=game, kind=FairPlayFlag.Kind.COLLUSION
            )
        }
        kept = set()
        for (a, b), found in hits.items():
            best = min(found, key=lambda f: f.p)
            version, partner = (
                (a, b) if best.kind != collusion.DUMPING or best.effect > 0 else (b, a)
            )
            flag = existing.get((version, partner)) or existing.get((partner, version))
            flag = flag or FairPlayFlag(
                game=game, kind=FairPlayFlag.Kind.COLLUSION, version_id=version, partner_id=partner
            )
            flag.current = True
            flag.statistic, flag.p_value, flag.threshold = best.t, best.p, best.threshold
            flag.effect, flag.deals, flag.matches = abs(best.effect), best.deals, best.matches
            flag.evidence = {**flag.evidence, "tests": [f.to_json() for f in found]}
            flag.save()
            kept.add(flag.pk)
        stale = [flag.pk for flag in existing.values() if flag.pk not in kept]
        FairPlayFlag.objects.filter(pk__in=stale).update(current=False)
    tested = len({(f.a, f.b) for f in findings})
    return GameAudit(game, tested, sorted(v for pair in hits for v in pair))


def _ids(flags: dict[int, FairPlayFlag]) -> dict[int, int]:
    return {version_id: flag.pk for version_id, flag in flags.items()}


def audit_all(
    games: Iterable[str] | None = None, alpha: float = significance.ALPHA
) -> list[GameAudit]:
    """Every audit of every game (or of ``games``)."""
    done = []
    for game in games or sorted(GAMES):
        done += [audit_rotations(game, alpha), audit_collusion(game, alpha)]
    return done
