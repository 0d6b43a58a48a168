"""Sign-in lockout (django-axes): the backend that refuses a locked-out client, the answer
it gets, and what a successful sign-in forgets. The same counts cover every sign-in path
(web, admin, API token, API session sign-in): each calls ``authenticate`` with the
request, which axes watches.

A sign-in forgets only the failures at its own name from its own address. Axes' reset on
success (AXES_RESET_ON_SUCCESS, off) deleted every failure of the address: signing in to
one's own account every 8 guesses let one address try 80 other names unrefused.
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from tournaments.guard.clients import client_address


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


def forget_own_failures(request: HttpRequest | None, user: AbstractBaseUser, **_: Any) -> None:
    """After ``user`` signed in: their own mistyped passwords from this address no longer
    count against it; its failures at every other name still do (receiver of
    ``user_logged_in``, and called by the API's token sign-in, which sends no signal)."""
    if request is None:
        return
    address = client_address(request)
    AccessAttempt.objects.filter(username=user.get_username(), ip_address=address).delete()
