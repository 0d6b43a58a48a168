"""One strict reading of the numbers that come in query strings and forms, and the 400 a
bad one gets.

``str.isdigit`` and ``int`` accept far more than a client should send: ``"²".isdigit()`` is
true and ``int("²")`` then fails; ``int("٣")`` is 3; a number of twenty digits passes
Python and overflows the database. So a number here is ASCII digits only, within bounds
a column can hold, and anything else raises BadParameter, which the middleware below
answers with a 400 naming the parameter (JSON under /api/, the message page elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

#: The largest key a bigint column holds.
MAX_KEY = 2**63 - 1
WHOLE = re.compile(r"[0-9]{1,19}")
#: A float as ``repr`` writes one (what the leaderboard's "more" link carries).
DECIMAL = re.compile(r"-?[0-9]{1,19}(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?")


class BadParameter(ValueError):
    """A query or form parameter that is not what the page or endpoint reads."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def whole_number(field: str, text: str, *, low: int = 0, high: int = MAX_KEY) -> int:
    """``text`` as an int from ``low`` to ``high``, written in ASCII digits only."""
    if not WHOLE.fullmatch(text):
        raise BadParameter(field, f"write a whole number in the digits 0-9 (not {text[:40]!r})")
    value = int(text)
    if not low <= value <= high:
        raise BadParameter(field, f"write a number from {low} to {high} (not {value})")
    return value


def optional_whole_number(
    query: Mapping[str, str], field: str, *, low: int = 0, high: int = MAX_KEY
) -> int | None:
    """The parameter ``field`` as a whole number, or None when it is absent or empty."""
    text = query.get(field, "")
    return None if text == "" else whole_number(field, text, low=low, high=high)


def optional_decimal(query: Mapping[str, str], field: str) -> float | None:
    """The parameter ``field`` as a finite float written in ASCII, or None when absent."""
    text = query.get(field, "")
    if text == "":
        return None
    if not DECIMAL.fullmatch(text) or abs(value := float(text)) > 1e300:
        raise BadParameter(field, f"write a decimal number such as 1512.5 (not {text[:40]!r})")
    return value


class BadParameterMiddleware:
    """Answers BadParameter, from any view, with a 400 that names the parameter."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, error: Exception) -> HttpResponse | None:
        if not isinstance(error, BadParameter):
            return None
        return refusal(request, error)


def refusal(request: HttpRequest, error: BadParameter) -> HttpResponse:
    """400: ``{field: [problem]}`` under /api/ (as DRF words its own), a page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({error.field: [error.problem]}, status=400)
    context = {"title": "That address has a bad parameter", "message": str(error)}
    return render(request, "web/refused.html", context, status=400)
