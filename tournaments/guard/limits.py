"""Rate limits shared by the web pages and the API: registrations, uploads, quick matches.

Counts live in the database (tournaments.models.RateCounter), one row per client and
limit, increased by one atomic ``INSERT ... ON CONFLICT DO UPDATE``: every
gunicorn worker and every host sees the same count, and N concurrent requests against a
limit of L let exactly L through (an in-process or read-then-write cache cannot promise
that). Rates are settings ("30/hour"; REST_FRAMEWORK's DEFAULT_THROTTLE_RATES).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework.request import Request

from tournaments.guard.clients import client_address

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

#: One statement, so concurrent requests are counted one after the other: a window that
#: is over starts again at 1, otherwise the count goes up by one.
UPSERT = """
INSERT INTO tournaments_ratecounter (key, count, expires_at) VALUES (%s, 1, %s)
ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN tournaments_ratecounter.expires_at <= %s
        THEN 1 ELSE tournaments_ratecounter.count + 1 END,
    expires_at = CASE WHEN tournaments_ratecounter.expires_at <= %s
        THEN excluded.expires_at ELSE tournaments_ratecounter.expires_at END
RETURNING count, expires_at
"""


@dataclass(frozen=True)
class Rate:
    requests: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"30/hour"`` (also s, m, h, d and their long names)."""
        number, _, period = text.partition("/")
        seconds = PERIODS.get(period.strip()[:1].lower())
        if seconds is None or not number.strip().isdigit():
            raise ValueError(f"rate {text!r}: write NUMBER/second|minute|hour|day")
        return cls(int(number), seconds)


def rate_for(scope: str) -> Rate:
    rates: dict[str, str] = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]  # type: ignore[assignment]
    return Rate.parse(rates[scope])


def hit(scope: str, ident: str, rate: Rate) -> float:
    """Count one request of ``ident`` against ``scope``: 0 if allowed, else the seconds
    until its window ends (when it may try again)."""
    now = time.time()
    key = f"{scope}:{ident}"[:200]
    with connection.cursor() as cursor:
        cursor.execute(UPSERT, [key, now + rate.seconds, now, now])
        count, ends = cursor.fetchone()
        if count == 1:  # a new window: forget the windows that are over
            cursor.execute("DELETE FROM tournaments_ratecounter WHERE expires_at < %s", [now])
    return 0.0 if count <= rate.requests else max(1.0, ends - now)


def ident_of(request: HttpRequest | Request, per_user: bool) -> str:
    """The signed-in user for per-user limits; the client's address otherwise."""
    user = request.user
    if per_user and user is not None and user.is_authenticated:
        return f"user-{user.pk}"
    return f"addr-{client_address(request)}"


View = TypeVar("View", bound=Callable[..., HttpResponse])


def limited(scope: str, per_user: bool = True) -> Callable[[View], View]:
    """The same limit on a web page's POST: over it, the 429 page says when to come back."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method == "POST":
                wait = hit(scope, ident_of(request, per_user), rate_for(scope))
                if wait:
                    return too_many(request, wait)
            return view(request, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def too_many(request: HttpRequest, wait: float) -> HttpResponse:
    minutes = max(1, round(wait / 60))
    response = render(
        request,
        "web/refused.html",
        {
            "title": "Too many requests",
            "message": f"You have reached the limit for this; try again in about {minutes} "
            f"minute{'s' if minutes != 1 else ''}.",
        },
        status=429,
    )
    response["Retry-After"] = str(int(wait) + 1)
    return response
