"""ASGI entry point: what the main job's gunicorn serves (docs/deploy.md, "The web server").

Its asyncio worker reads each request's headers and body on an event loop and hands
Django a request only once the body is in, so a client that sends slowly holds a
coroutine, not one of the few threads that run views.
"""

import logging
import os
import warnings

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")
django_application = get_asgi_application()

from tournaments.config.served import task_problems  # noqa: E402
from tournaments.guard.requestlimits import BodySizeGuard  # noqa: E402  (needs the settings loaded)

application = BodySizeGuard(django_application)

# Static files (WhiteNoise) are served by a file's iterator, which Django's ASGI handler
# reads in a thread; it warns of that once per file, where a file is small and cached.
warnings.filterwarnings("ignore", "StreamingHttpResponse must consume synchronous iterators")

for problem in task_problems():
    logging.getLogger("tournaments.config.asgi").warning("WARNING: %s", problem)

from tournaments.config.collector import tune_for_requests  # noqa: E402

# Last: everything start-up made is kept out of the collector's way
# (tournaments/config/collector.py).
tune_for_requests()
