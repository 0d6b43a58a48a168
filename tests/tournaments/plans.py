"""Reading PostgreSQL query plans in tests: which of a set of tables a statement reads whole
(a sequential scan, or an index scan with no condition: every entry of the index)."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import Any


def tables_read_whole(plan: Any, tables: Collection[str]) -> list[str]:
    """The ``tables`` that ``plan`` (EXPLAIN (FORMAT JSON)'s answer) reads whole."""
    if isinstance(plan, str):
        plan = json.loads(plan)
    return [node["Relation Name"] for node in nodes(plan[0]["Plan"]) if whole(node, tables)]


def nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans", []):
        yield from nodes(child)


def whole(node: dict[str, Any], tables: Collection[str]) -> bool:
    if node.get("Relation Name") not in tables:
        return False
    kind = node["Node Type"]
    return kind == "Seq Scan" or (kind.startswith("Index") and "Index Cond" not in node)
