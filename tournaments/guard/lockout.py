"""Sign-in lockout (django-axes): the backend that refuses a locked-out client, and the
answer it gets. The same counts cover every sign-in path (web, admin, API token, API
session sign-in): each calls ``authenticate`` with the request, which axes watches."""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


class LockoutBackend(AxesStandaloneBackend):  # type: ignore[misc,unused-ignore]
    """Axes' check, skipped where there is no request: code on the server signing a user
    in (the test client, management commands), never a client."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> AbstractBaseUser | None:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)  # type: ignore[no-any-return,unused-ignore]


def lockout_message() -> str:
    minutes = round(settings.AXES_COOLOFF_TIME * 60)
    return (
        f"Too many failed sign-ins: signing in is blocked for {minutes} minutes from the "
        "last failure. Check the user name and password, then try again later."
    )


def locked_out(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """429 with a Retry-After: JSON under /api/, the message page elsewhere."""
    wait = int(settings.AXES_COOLOFF_TIME * 3600)
    response: HttpResponse
    if request.path.startswith("/api/") and not request.path.startswith("/api/auth/"):
        response = JsonResponse({"detail": lockout_message()}, status=429)
    else:
        context = {"title": "Signing in is blocked", "message": lockout_message()}
        response = render(request, "web/refused.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response
