"""The Celery app: ``celery -A tournaments worker`` and ``celery -A tournaments beat``.

Its configuration is the CELERY_* part of tournaments.config.settings (from the environment).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")

app = Celery("tournaments")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The tasks live in tournaments.play.tasks and tournaments.play.version_checks (CELERY_IMPORTS);
# each keeps the name it had before the service was split into rooms (``name=`` on the task), so
# a broker's queued messages and the beat schedule still find them.
app.autodiscover_tasks(["tournaments.play"])
