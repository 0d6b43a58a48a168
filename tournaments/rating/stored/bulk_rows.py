"""Writing many rows of a model at once: PostgreSQL COPY, bulk_create elsewhere.

recompute_ratings --write (and the migrations that recompute) replace the whole rating
history (one row per bot and rated match: 1.5 million at 500,000 matches) and every
rating record. Through bulk_create each row becomes a model instance and an INSERT's
parameters (about 20 s per 50,000 records here); COPY streams plain values and costs a
fraction of that. SQLite (the embedded default) has no COPY and keeps bulk_create.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from django.db import connection

#: Rows per statement (a COPY, or a bulk_create's INSERT).
BATCH = 5000


def write_rows(model: Any, fields: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Insert ``rows`` (each the values of ``fields``, in that order) into ``model``'s
    table, in batches of BATCH, each a COPY on PostgreSQL (so that other statements may
    run between two batches: a stream being read on the same connection); how many.
    ``model`` may be a migration's historical model; ids are left to the table."""
    rows = iter(rows)
    written = 0
    while batch := list(islice(rows, BATCH)):
        if connection.vendor == "postgresql":
            _copy(model, fields, batch)
        else:
            model.objects.bulk_create(model(**dict(zip(fields, row, strict=True))) for row in batch)
        written += len(batch)
    return written


def _copy(model: Any, fields: Sequence[str], batch: list[Sequence[Any]]) -> None:
    columns = ", ".join(f'"{model._meta.get_field(name).column}"' for name in fields)
    statement = f'COPY "{model._meta.db_table}" ({columns}) FROM STDIN'
    with connection.cursor() as wrapper, wrapper.cursor.copy(statement) as copy:
        for row in batch:
            copy.write_row(row)
