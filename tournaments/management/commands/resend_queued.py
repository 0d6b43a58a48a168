"""``manage.py resend_queued``: every queued match and pending check waits for the dispatcher again.

For a broker that lost its messages (a new or restarted Redis: scripts/run starts a fresh
one each time). Sending twice is harmless: a match is claimed once and a check of a
version already checked is skipped. Matches whose worker vanished are taken back by the
reaper once their lease runs out. Queued ladder matches are cancelled instead: the ladder
picks new tables from the ratings of now.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from tournaments.models import BotVersion, Match
from tournaments.play import queued_work


class Command(BaseCommand):
    help = "Have the queued matches and the pending bot checks sent to the broker again."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            # The ladder chooses its tables afresh from the ratings of now: its lost
            # matches are cancelled rather than sent (a slot is then free for it again).
            stale = Match.objects.filter(status=Match.Status.QUEUED, ladder__isnull=False)
            dropped = stale.update(status=Match.Status.CANCELLED, sent_at=None)
            queued = Match.objects.filter(status=Match.Status.QUEUED)
            # Sent before is lost now: tournament matches wait for the dispatcher again.
            queued.update(enqueued_at=timezone.now(), sent_at=None)
            matches = list(queued.order_by("id"))
            queued_work.enqueue_matches(matches)  # the dispatcher runs after commit
            # Checks sent before are lost too: they wait for the dispatcher again.
            waiting = BotVersion.objects.filter(
                status__in=(BotVersion.Status.PENDING, BotVersion.Status.CHECKING)
            )
            versions = waiting.update(status=BotVersion.Status.PENDING, check_sent_at=None)
        self.stdout.write(
            f"sent again: {len(matches)} queued matches, {versions} checks"
            + (f"; {dropped} queued ladder matches cancelled" if dropped else "")
        )
