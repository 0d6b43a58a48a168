"""Where a bot's name may wrap on a narrow screen: after its - _ . (between the words of
"deep_thought_v2"), never inside a word. The pages mark those places with ``<wbr>`` and
keep ``overflow-wrap: break-word``, which breaks a word only when it alone is wider than
its line, so a table column is never squeezed into splitting names mid-word."""

from __future__ import annotations

import re

from django.utils.html import format_html_join
from django.utils.safestring import SafeString

#: After each of these a name may wrap (bot names hold letters, digits and - _ .).
_AFTER_SEPARATOR = re.compile(r"(?<=[-_.])")
_BREAK = SafeString("<wbr>")


def breakable_name(name: str) -> SafeString:
    """``name`` escaped, with ``<wbr>`` after each separator."""
    return format_html_join(_BREAK, "{}", ((part,) for part in _AFTER_SEPARATOR.split(name)))
