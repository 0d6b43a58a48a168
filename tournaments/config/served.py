"""Warnings for a process that serves the site (``manage.py check --deploy``, and gunicorn at
start through tournaments.config.wsgi): matches are played by workers, never inside a request."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning


def task_problems() -> list[str]:
    """What would make a web request play a match or lose its tasks; empty when fine."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return [
            "CELERY_TASK_ALWAYS_EAGER is on: every match and check runs inside the web request "
            "that queued it (and ignores time limits). It is for the tests only; unset it and "
            "run Celery workers (scripts/run does)."
        ]
    if str(settings.CELERY_BROKER_URL).startswith("memory://"):
        return [
            "no broker configured (CELERY_BROKER_URL): matches and checks are queued in this "
            "process's memory, where no worker sees them. Set it to the Redis URL the workers "
            "use (scripts/run starts its own)."
        ]
    return []


@register(Tags.compatibility, deploy=True)
def check_tasks_leave_the_web_process(app_configs: Any = None, **_: Any) -> list[CheckMessage]:
    """``check --deploy``: the served processes send tasks to workers."""
    return [CheckWarning(text, id="tournaments.W001") for text in task_problems()]
