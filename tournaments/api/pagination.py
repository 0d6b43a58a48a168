"""Every list comes in pages, followed by cursors; a client may ask for up to 100 rows a page.

Cursor (keyset) pages cost the same at any depth: the next page starts where the last one
ended (``WHERE id < last``, one index range), where a page number would make the
database count and skip every row before it. So there is no ``?page=`` and no total
``count``: follow ``next`` and ``previous`` (see docs/api.md).
"""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.views import APIView


class Pages(CursorPagination):
    """Newest first by default; a view may set ``cursor_ordering`` (unique last field)."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    ordering = "-id"

    def get_ordering(self, request: Request, queryset: Any, view: APIView) -> tuple[str, ...]:
        """The ``?ordering=`` chosen, else the view's ``cursor_ordering``, else newest first;
        ending in the id, so that rows that tie on the first field keep one order."""
        if "ordering" in request.query_params:
            chosen = tuple(super().get_ordering(request, queryset, view))
        else:
            chosen = tuple(getattr(view, "cursor_ordering", (self.ordering,)))
        if chosen[-1].lstrip("-") not in ("id", "pk"):
            chosen = (*chosen, "-id" if chosen[0].startswith("-") else "id")
        return chosen
