"""The service: Django project and app (models, API, web pages, Celery tasks, ratings)."""

from tournaments.config.celery import app as celery_app

__all__ = ["celery_app"]
