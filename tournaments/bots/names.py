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

import functools
import string
import unicodedata

from confusable_homoglyphs import (  # type: ignore[import-untyped]
    categories,
    confusables,
    utils,
)

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


#: Letters that two or three of another pass for, beyond Unicode's single-character
#: look-alikes (UTS #39 maps only one character to another): compared in the skeleton's
#: own letters (``cl`` is ``c1`` there).
SEQUENCES = (("rn", "m"), ("vv", "w"), ("cl", "d"))
#: Latin ligatures NFKC keeps whole, written as the letters they join.
LIGATURES = {"æ": "ae", "œ": "oe", "ĳ": "ij", "ꜳ": "aa", "ꝏ": "oo", "ᵫ": "ue"}


def skeleton(name: str) -> str:
    """The name as it looks, so that two names with one skeleton pass for each other:
    Latin letters without their marks (``ạlice``, ``álice``, ``malłory``: accents, dots,
    strokes and bars dropped), then Unicode's UTS #39 skeleton folded for case (``ɑlice``,
    ``alıce``, ``aIice`` and ``a1ice`` all look like ``alice``; ``ᴀlice`` folds to it
    through its small capital), then the letters that a pair passes for (``rn`` for
    ``m``, ``vv`` for ``w``, ``cl`` for ``d``).

    Each character becomes the chosen member of its class of look-alikes (Unicode's
    confusables.txt, as confusable-homoglyphs ships it), the text is case-folded, and
    both steps repeat until nothing changes (a folded letter may have look-alikes of its
    own); the pairs are then replaced until none is left (``rrnn`` is ``rmn``)."""
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    text = unicodedata.normalize("NFD", _plain_latin(text))
    for _ in range(4):
        shown = "".join(_prototype(char) for char in text).casefold()
        shown = unicodedata.normalize("NFD", shown)
        if shown == text:
            break
        text = shown
    return _without_sequences(text)


def _plain_latin(text: str) -> str:
    """``text`` with every mark on a Latin letter dropped and every Latin letter with a
    stroke, bar, hook or other part written as its base letter (``ł`` as ``l``, ``ø`` as
    ``o``, found by its Unicode name: LATIN SMALL LETTER L WITH STROKE). Marks of other
    scripts stay (an Indic vowel sign is a letter of its own)."""
    kept: list[str] = []
    latin = False
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) == "Mn":
            if not latin:
                kept.append(char)
            continue
        plain = _latin_base(char)
        latin = plain is not None
        kept.append(plain if plain is not None else char)
    return "".join(kept)


@functools.cache
def _latin_base(char: str) -> str | None:
    """The plain Latin letters ``char`` is written as, or None when it is not Latin."""
    named = unicodedata.name(char, "")
    if not named.startswith("LATIN "):
        return None
    if char in LIGATURES or char.casefold() in LIGATURES:
        plain = LIGATURES[char.casefold()]
        return plain.upper() if char.isupper() else plain
    base, found, _ = named.partition(" WITH ")
    if not found:
        return char
    try:
        return unicodedata.lookup(base)
    except KeyError:
        return char


def _without_sequences(text: str) -> str:
    for _ in range(4):
        shown = text
        for pair, single in _sequences():
            shown = shown.replace(pair, single)
        if shown == text:
            break
        text = shown
    return text


@functools.cache
def _sequences() -> tuple[tuple[str, str], ...]:
    """SEQUENCES in the skeleton's letters (``cl`` is ``c1`` there, ``d`` stays ``d``)."""
    return tuple(
        ("".join(_prototype(c) for c in pair).casefold(), _prototype(single).casefold())
        for pair, single in SEQUENCES
    )


def _prototype(char: str) -> str:
    return _look_alike_classes().get(char, char)


@functools.cache
def _look_alike_classes() -> dict[str, str]:
    """Every character of confusables.txt to one member of its class of look-alikes (an
    ASCII one where the class has one, else the lowest): classes join the pairs of single
    characters that confusables.txt lists as confusable, in either direction, then each
    ASCII letter with its other case, and a class with no ASCII member with the class of
    its case-folded form when that one has (Cherokee ``ꭺ`` folds to ``Ꭺ``, which is
    ``A``). Case is not joined further: through other scripts' cases, chains of
    look-alikes would join letters that do not look alike at all."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.setdefault(char, char) != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    def join(one: str, other: str) -> None:
        first, second = sorted((root(one), root(other)), key=_preference)
        parent[second] = first

    for char, twins in utils.load("confusables.json").items():
        for twin in twins:
            if len(char) == 1 and len(twin["c"]) == 1:
                join(char, twin["c"])
    for upper, lower in zip(string.ascii_uppercase, string.ascii_lowercase, strict=True):
        join(upper, lower)
    for char in list(parent):  # a class with no ASCII member, cased like an ASCII one
        folded = char.casefold()
        if len(folded) == 1 and not root(char).isascii() and root(folded).isascii():
            join(char, folded)
    return {char: root(char) for char in parent}


def _preference(char: str) -> tuple[bool, int]:
    return (not char.isascii(), ord(char))
