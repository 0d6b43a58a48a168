"""Every list comes in pages, followed by cursors; a client may ask for up to 100 rows a page.

Cursor (keyset) pages cost the same at any depth: the next page starts where the last one
ended (``WHERE id < last``, one index range), where a page number would make the
database count and skip every row before it. So there is no ``?page=`` and no total
``count``: follow ``next`` and ``previous`` (see docs/api.md).

A cursor is signed (django.core.signing) with the ordering it was made for: the position
it carries goes into a ``WHERE`` on that ordering's field, so a cursor the server did not
make, or made for another ordering, is refused (400 naming ``cursor``) before any query.
"""

from __future__ import annotations

from typing import Any

from django.core import signing
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from tournaments.guard import queryparams

SALT = "tournaments.api.pagination.cursor"


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

    def get_page_size(self, request: Request) -> int:
        """``?page_size=`` from 1 to ``max_page_size`` in ASCII digits (400 otherwise)."""
        chosen = queryparams.optional_whole_number(
            request.query_params, self.page_size_query_param, low=1, high=self.max_page_size
        )
        return self.page_size if chosen is None else chosen

    def encode_cursor(self, cursor: Cursor) -> str:
        made = [cursor.offset, bool(cursor.reverse), cursor.position, list(self.ordering)]
        token = signing.dumps(made, salt=SALT)
        return str(replace_query_param(str(self.base_url), self.cursor_query_param, token))

    def decode_cursor(self, request: Request) -> Cursor | None:
        """The cursor of a ``next`` or ``previous`` link, as this server signed it."""
        token = request.query_params.get(self.cursor_query_param)
        if token is None:
            return None
        try:
            offset, reverse, position, ordering = signing.loads(token, salt=SALT)
        except (signing.BadSignature, ValueError, TypeError):
            raise queryparams.BadParameter(
                "cursor", "not a cursor of this server: follow the next and previous links as given"
            ) from None
        if ordering != list(self.ordering):
            raise queryparams.BadParameter(
                "cursor", "made for another ordering: start again without a cursor"
            )
        return Cursor(offset=min(offset, self.offset_cutoff), reverse=reverse, position=position)
