"""One rule for the names people choose (bots on the web and in the API; user names).

A name is stored in Unicode's NFKC form (full-width and ligature look-alikes become the
plain letters); it holds letters, digits, marks and a few punctuation characters only
(nothing invisible: no format characters, spaces, variation selectors or fillers); its
letters come from one script (Japanese and Korean mixes count as one); and no character
may pass for a Latin one, as ``pаypal`` with a Cyrillic ``а`` would (confusable-homoglyphs
knows the look-alikes): a name of another script whose every letter has a Latin twin is
refused too.
"""

from __future__ import annotations

import unicodedata

from confusable_homoglyphs import categories, confusables  # type: ignore[import-untyped]

BOT_NAME_PUNCTUATION = "-_."
USER_NAME_PUNCTUATION = "@.+-_"
#: Scripts that are written together and count as one.
SCRIPT_FAMILIES = (
    frozenset({"HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"HAN", "HANGUL"}),
)
#: Default-ignorable characters that Unicode files as letters or marks (shown as nothing).
INVISIBLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0),
        *range(0x180B, 0x1810),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
    ]
)


class NameRuleError(ValueError):
    """The name breaks the rule; the message says how, in plain words."""


def checked_name(raw: str, punctuation: str = BOT_NAME_PUNCTUATION, max_length: int = 64) -> str:
    """``raw`` in NFKC form if it follows the rule; NameRuleError otherwise."""
    name = unicodedata.normalize("NFKC", raw).strip()
    if not 1 <= len(name) <= max_length:
        raise NameRuleError(f"use 1 to {max_length} characters")
    for char in name:
        if not allowed(char, punctuation):
            shown = f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"
            raise NameRuleError(
                f"use letters, digits and {' '.join(punctuation)} only (not {shown})"
            )
    if unicodedata.category(name[0])[0] not in "LN":
        raise NameRuleError("start with a letter or a digit")
    scripts = categories.unique_aliases(name) - {"COMMON", "INHERITED"}
    if len(scripts) > 1 and not any(scripts <= family for family in SCRIPT_FAMILIES):
        raise NameRuleError(f"use letters of one script (this mixes {', '.join(sorted(scripts))})")
    if scripts and scripts != {"LATIN"} and looks_latin(name):
        raise NameRuleError(
            "every letter of this name looks like a Latin one; it could pass for another name"
        )
    return name


def looks_latin(name: str) -> bool:
    """Whether every letter of ``name`` has a Latin look-alike (``сор`` in Cyrillic)."""
    letters = [char for char in name if unicodedata.category(char)[0] == "L"]
    return bool(letters) and all(
        confusables.is_confusable(char, preferred_aliases=["latin"]) for char in letters
    )


def allowed(char: str, punctuation: str) -> bool:
    if ord(char) in INVISIBLE:
        return False
    return char in punctuation or unicodedata.category(char)[0] in "LNM"
