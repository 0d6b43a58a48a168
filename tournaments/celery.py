"""The Celery app: ``celery -A tournaments worker`` and ``celery -A tournaments beat``.

Its configuration is the CELERY_* part of tournaments.settings (from the environment).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

app = Celery("tournaments")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["tournaments"])
