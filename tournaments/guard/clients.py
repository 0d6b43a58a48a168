"""Who is asking: the client's address, believing ``X-Forwarded-For`` only as far as the
configured number of proxies in front of the site (DJANGO_TRUSTED_PROXIES) vouches for it.

A client can put anything in its own ``X-Forwarded-For``; each trusted proxy appends the
address it saw, so the address is the one that many entries from the right.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest | Any) -> str | None:
    """The address of the client as the outermost trusted proxy saw it (None: a request
    made inside the server, such as the test client's sign-in)."""
    remote = ip_or_none(request.META.get("REMOTE_ADDR"))
    proxies: int = settings.TRUSTED_PROXIES
    if proxies <= 0:
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    if len(hops) < proxies:
        return remote  # not through all the proxies: the direct peer is the client
    return ip_or_none(hops[-proxies]) or remote


def ip_or_none(text: object) -> str | None:
    try:
        return str(ipaddress.ip_address(str(text)))
    except ValueError:
        return None
