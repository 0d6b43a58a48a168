"""The API's own refusals beyond DRF's: 409 for a wrong state, 413 for a big upload."""

from __future__ import annotations

from rest_framework import status
from rest_framework.exceptions import APIException


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the object is not in a state that allows this"
    default_code = "conflict"


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the upload is too large"
    default_code = "too_large"
