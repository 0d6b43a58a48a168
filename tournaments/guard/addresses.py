"""Where accounts come from: the network each registered, signed in and acts from.

The scheduler shares the workers by person, not by account (tournaments.play.shares):
registration allows several accounts an hour from one address, so a person with three
accounts would otherwise get three shares. What those accounts have in common is where
they come from. An address is cut to the network one subscriber holds, as rate limiters
do (an IPv4 /24, an IPv6 /64: a home or a host gets a whole /64, and rotating within it
costs nothing), and stored once per account and network, with when it was first and
last seen.

Recorded at registration (the API's register view calls ``remember``; the web form signs
the new account in), at every sign-in (``on_signed_in``, Django's ``user_logged_in``) and
on every authenticated write (``AddressMiddleware``: uploads, quick matches, tournaments,
over the web or the API with a token).
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from tournaments.guard.clients import client_address
from tournaments.models import AccountAddress

#: Methods that change something: an account acting, not reading.
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def network_of(address: str | None) -> str:
    """The network ``address`` belongs to ("203.0.113.0/24", "2001:db8::/64"), "" when
    there is no address (a request made inside the server)."""
    if not address:
        return ""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return ""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = settings.SHARE_IPV4_PREFIX if ip.version == 4 else settings.SHARE_IPV6_PREFIX
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def remember(user: AbstractBaseUser | AnonymousUser | None, address: str | None) -> None:
    """Record that ``user`` came from ``address``'s network now (one upsert)."""
    network = network_of(address)
    if user is None or not user.is_authenticated or not network:
        return
    now = timezone.now()
    AccountAddress.objects.bulk_create(
        [AccountAddress(user_id=user.pk, network=network, first_seen=now, last_seen=now)],
        update_conflicts=True,
        unique_fields=["user", "network"],
        update_fields=["last_seen"],
    )


def remember_request(request: HttpRequest | Any, user: AbstractBaseUser | None = None) -> None:
    """Record the network of ``request``'s client for ``user`` (its signed-in user)."""
    remember(user if user is not None else getattr(request, "user", None), client_address(request))


def on_signed_in(
    sender: Any, request: HttpRequest | None, user: AbstractBaseUser, **_: Any
) -> None:
    """The receiver of ``user_logged_in`` (connected in apps.py): a sign-in, or the web
    sign-up, which signs the new account in."""
    if request is not None:
        remember_request(request, user)


class AddressMiddleware:
    """Records the network of every authenticated write, once the view has run (DRF
    authenticates a token inside the view, and sets the request's user then)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method in WRITES and response.status_code < 400:
            with contextlib.suppress(
                DatabaseError
            ):  # never fails the answer: the next write records it
                remember_request(request)
        return response
