"""The Celery app: ``celery -A tournaments worker`` and ``celery -A tournaments beat``.

Its configuration is the CELERY_* part of tournaments.config.settings (from the environment).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")

log = logging.getLogger(__name__)
app = Celery("tournaments")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The tasks live in tournaments.play.tasks and tournaments.play.version_checks (CELERY_IMPORTS);
# each keeps the name it had before the service was split into rooms (``name=`` on the task), so
# a broker's queued messages and the beat schedule still find them.
app.autodiscover_tasks(["tournaments.play"])


@worker_init.connect
def choose_queues(sender: Any, **_: Any) -> None:
    """A worker started without ``-Q`` plays bots' matches and checks (settings.QUEUES),
    never people's tables, which a worker of their own serves (``-Q tables --pool threads``:
    a process held by a person thinking would be a process no bot can use). A worker asked
    for tables and other queues at once leaves the tables out, saying why. (Runs once the
    worker has chosen its queues from ``-Q``, before it consumes.)"""
    from django.conf import settings

    queues = app.amqp.queues
    asked = set(queues._consume_from or ())  # None: no -Q, every queue declared
    if not asked:
        queues.select(settings.QUEUES)
    elif settings.TABLES_QUEUE in asked and len(asked) > 1:
        log.error(
            "worker %s: -Q %s mixes the %s queue with others: it plays no tables; start "
            "one worker with -Q %s --pool threads for them (docs/deploy.md)",
            sender.hostname,
            ",".join(sorted(asked)),
            settings.TABLES_QUEUE,
            settings.TABLES_QUEUE,
        )
        queues.select(sorted(asked - {settings.TABLES_QUEUE}))
