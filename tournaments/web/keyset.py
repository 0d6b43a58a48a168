"""Keyset pages for the web lists: ``?after=K`` (or ``?before=K``) starts the page past key K.

A page number would make the database count and skip every row before it; a key is one
index range at any depth. Pages hold ``size`` rows, with links to the neighbouring pages
when there are rows there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest

from tournaments.guard import queryparams


@dataclass(frozen=True)
class Page:
    """The rows of one page and the keys that start the pages beside it (None: none)."""

    object_list: list[Any]
    newer: int | None
    older: int | None

    def __iter__(self) -> Any:
        return iter(self.object_list)

    @property
    def has_other_pages(self) -> bool:
        return self.newer is not None or self.older is not None


def requested_key(request: HttpRequest, name: str) -> int | None:
    """A non-negative integer key from the query string, or None when it is absent; a bad
    one (``²``, twenty digits) is BadParameter, a 400 naming it."""
    return queryparams.optional_whole_number(request.GET, name)


def keyset_page(
    request: HttpRequest, rows: QuerySet[Any], key: str, size: int, *, descending: bool
) -> Page:
    """The page of ``rows`` (ordered by the unique integer field ``key``) that the request
    asks for: the first, or the one ``?after=`` / ``?before=`` a key in list order."""
    after, before = requested_key(request, "after"), requested_key(request, "before")
    forward, back = ("lt", "gt") if descending else ("gt", "lt")
    order = f"-{key}" if descending else key
    reverse = order.lstrip("-") if descending else f"-{key}"
    if before is not None:
        found = list(rows.filter(**{f"{key}__{back}": before}).order_by(reverse)[: size + 1])
        more_before = len(found) > size
        listed = found[:size][::-1]
        newer = key_of(listed[0], key) if more_before and listed else None
        older = key_of(listed[-1], key) if listed else None
        return Page(listed, newer, older)
    if after is not None:
        rows = rows.filter(**{f"{key}__{forward}": after})
    found = list(rows.order_by(order)[: size + 1])
    listed = found[:size]
    newer = key_of(listed[0], key) if after is not None and listed else None
    older = key_of(listed[-1], key) if len(found) > size else None
    return Page(listed, newer, older)


def key_of(row: Any, key: str) -> int:
    value: int = getattr(row, key)
    return value
