"""The one error of the service's actions, at the bottom of the rooms so every room may raise
it (quotas, bots, competitions, play) and the API and the pages may answer it (a 400 or a
message saying what was wrong) without importing the room that raised it."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request the service cannot carry out as asked; the message says why."""
