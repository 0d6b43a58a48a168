"""Limits on what costs the service work: uploads (each is checked in the sandbox), quick
matches, and new accounts. The counts are shared with the web pages (tournaments.guard.limits);
rates are settings (REST_FRAMEWORK's DEFAULT_THROTTLE_RATES)."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from tournaments.guard.limits import hit, ident_of, rate_for


class SharedThrottle(BaseThrottle):
    """A DRF throttle over the shared counters; reading a route never counts."""

    scope = ""
    per_user = True

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        self.retry_after = hit(self.scope, ident_of(request, self.per_user), rate_for(self.scope))
        return not self.retry_after

    def wait(self) -> float | None:
        return self.retry_after or None


class UploadThrottle(SharedThrottle):
    scope = "uploads"


class QuickMatchThrottle(SharedThrottle):
    scope = "quick_matches"


class RegistrationThrottle(SharedThrottle):
    scope = "registrations"
    per_user = False
