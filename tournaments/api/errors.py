"""The API's own refusals beyond DRF's: 409 for a wrong state, 413 for a big upload,
429 for a quota (tournaments.guard.quotas)."""

from __future__ import annotations

from rest_framework import status
from rest_framework.exceptions import APIException, Throttled

from tournaments.guard.quotas import QuotaExceeded


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the object is not in a state that allows this"
    default_code = "conflict"


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the upload is too large"
    default_code = "too_large"


def over_quota(error: QuotaExceeded) -> Throttled:
    """429 Too Many Requests, with Retry-After and the quota's own words."""
    return Throttled(wait=error.retry_after, detail=str(error))
