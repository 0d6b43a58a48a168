"""JSON from users, nested at most MAX_DEPTH deep.

Python's json module recurses once per level: a body of 100,000 ``[`` raised
RecursionError inside the parser (a 500). The depth is measured first, in one pass over
the text that skips strings, so no parser ever sees a deeper document.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 32
#: Brackets and strings (with their escapes); everything else cannot change the depth.
TOKENS = re.compile(r'[\[\]{}]|"(?:[^"\\]|\\.)*"?', re.S)


class TooDeep(ValueError):
    """The document nests deeper than MAX_DEPTH."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings ignored)."""
    level = deepest = 0
    for token in TOKENS.findall(text):
        if token in "[{":
            level += 1
            deepest = max(deepest, level)
        elif token in "]}":
            level -= 1
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads``, refusing (TooDeep) a document nested deeper than ``max_depth``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if depth(text) > max_depth:
        raise TooDeep(f"JSON nested more than {max_depth} levels deep")
    return json.loads(text)
