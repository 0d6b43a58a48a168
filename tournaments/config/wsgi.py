"""WSGI entry point for production servers."""

import logging
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")
application = get_wsgi_application()

from tournaments.config.served import task_problems  # noqa: E402  (needs the settings loaded)

for problem in task_problems():
    logging.getLogger("tournaments.config.wsgi").warning("WARNING: %s", problem)
# Static files are served by WhiteNoise's middleware (settings.py), as under ASGI.

from tournaments.config.collector import tune_for_requests  # noqa: E402

# Last: everything start-up made is kept out of the collector's way
# (tournaments/config/collector.py).
tune_for_requests()
