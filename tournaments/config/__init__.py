"""Process setup: settings read from the environment, the Celery app, the WSGI/ASGI entry
points, the web server's configuration and the URL root. No domain code lives here."""
