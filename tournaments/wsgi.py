"""WSGI entry point for production servers."""

import logging
import os
from pathlib import Path

from django.conf import settings
from django.core.wsgi import get_wsgi_application
from whitenoise import WhiteNoise  # type: ignore[import-untyped]

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
application = get_wsgi_application()

from tournaments.served import task_problems  # noqa: E402  (needs the settings loaded)

for problem in task_problems():
    logging.getLogger("tournaments.wsgi").warning("WARNING: %s", problem)

# Static files collected into STATIC_ROOT (the image does so) are served by the app server
# itself, compressed and cached (docs/deploy.md); without them (development), nothing.
if Path(settings.STATIC_ROOT).is_dir():
    application = WhiteNoise(application, root=settings.STATIC_ROOT, prefix=settings.STATIC_URL)

from tournaments.collector import tune_for_requests  # noqa: E402

# Last: everything start-up made is kept out of the collector's way (tournaments/collector.py).
tune_for_requests()
