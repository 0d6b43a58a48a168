"""The service: Django project and app (models, API, web pages, Celery tasks, ratings)."""
