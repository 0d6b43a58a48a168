"""``manage.py resend_queued``: send every queued match and pending check to the broker again.

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

from tournaments import services
from tournaments.checks import check_version
from tournaments.models import BotVersion, Match


class Command(BaseCommand):
    help = "Send the queued matches and the pending bot checks to the broker again."

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
            services.enqueue_matches(matches)
        waiting = BotVersion.objects.filter(
            status__in=(BotVersion.Status.PENDING, BotVersion.Status.CHECKING)
        )
        versions = list(waiting.order_by("id").values_list("id", flat=True))
        for version_id in versions:
            check_version.delay(version_id)
        self.stdout.write(
            f"sent again: {len(matches)} queued matches, {len(versions)} checks"
            + (f"; {dropped} queued ladder matches cancelled" if dropped else "")
        )
