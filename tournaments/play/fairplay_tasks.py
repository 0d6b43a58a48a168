"""The fair-play audits as a periodic task (beat, every FAIR_PLAY_AUDIT_SECONDS, on the
batch queue): each game's stored results audited and its flags refreshed
(tournaments.fairplay.flags); a game that fails is logged and the others still run."""

from __future__ import annotations

import logging

from celery import shared_task

from judge.games import GAMES
from tournaments.fairplay import flags

log = logging.getLogger(__name__)


@shared_task(acks_late=True, name="tournaments.tasks.audit_fair_play")
def audit_fair_play() -> dict[str, list[int] | str]:
    """Each game's flagged versions (ids), or "failed"."""
    done: dict[str, list[int] | str] = {}
    for game in sorted(GAMES):
        try:
            flagged = flags.audit_rotations(game).flagged
            done[game] = flagged + flags.audit_collusion(game).flagged
        except Exception:  # the next beat tries again; the flags stay as they were
            log.exception("fair-play audit of %s failed", game)
            done[game] = "failed"
    return done
