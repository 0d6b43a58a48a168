"""Limits on what costs the service work: uploads (each is checked in the sandbox), quick
matches, and new accounts. Rates are settings (REST_FRAMEWORK's DEFAULT_THROTTLE_RATES)."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle
from rest_framework.views import APIView


class WritesOnly:
    """Reading a route never counts against its limit; only the writes do."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)  # type: ignore[misc]


class UploadThrottle(WritesOnly, UserRateThrottle):
    scope = "uploads"


class QuickMatchThrottle(WritesOnly, UserRateThrottle):
    scope = "quick_matches"


class RegistrationThrottle(WritesOnly, AnonRateThrottle):
    scope = "registrations"
