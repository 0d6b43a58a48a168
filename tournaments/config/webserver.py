"""The web server's configuration (gunicorn ``--config python:tournaments.config.webserver``), the
one scripts/run and docker-compose serve with (docs/deploy.md, "The web server").

gunicorn's asyncio worker ("asgi") reads every request's headers and body on an event loop
and calls Django (tournaments.config.asgi) only once the body is in; views run in Django's
threads. So a client that sends its body one byte every few seconds holds a coroutine and
a socket, not a thread that views need: the gthread worker measured here gave every other
request a 30 s timeout under ten such clients (issue 31). A body that stalls for longer
than ``timeout`` seconds is dropped; a body declared over REQUEST_MAX_BYTES is refused
before it is read (tournaments.guard.requestlimits.BodySizeGuard).
"""

import os

wsgi_app = "tournaments.config.asgi:application"
worker_class = "asgi"
workers = int(os.environ.get("WEB_WORKERS", "2"))
#: Open connections a worker holds at once (slow ones included) before it stops accepting.
worker_connections = 1000
#: Seconds a worker may go silent, and a request body may stall between two reads.
timeout = 30
graceful_timeout = 5
keepalive = 5
accesslog = "-"
#: No control socket: it would be one file in the home folder, shared by every server.
control_socket_disable = True
