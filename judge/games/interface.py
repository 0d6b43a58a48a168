"""What a game class may declare: the attributes of judge.engine.Game, and nothing else.

The rest of the system reads a game only through the attributes the interface names, so
an attribute it does not know (a misspelling, a name from an older version of the
interface, ``moves_per_deal`` for ``moves_per_game``) would be silently ignored: the game
would run with the default instead. The registry refuses such a class when it registers
it, naming the attribute and the interface's nearest name. A game keeps its own constants
private (``_TARGET``) or at module level; its public methods are its own affair.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from judge.engine import Game, GameError

#: What a registry name may be: it is a command-line word, a protocol value and a URL part.
NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
#: Declared attributes whose values must be of a kind (the rest are checked where used).
KINDS: Mapping[str, type | tuple[type, ...]] = {
    "title": str,
    "variants": tuple,
    "min_players": int,
    "max_players": int,
    "default_players": int,
    "option_schema": tuple,
    "private_keys": tuple,
    "zero_sum": bool,
    "moves_per_game": int,
    "repeat_options": tuple,
    "demo_format": Mapping,
    "demo_duel": (tuple, type(None)),
    "check_options": Mapping,
    "situations": Mapping,
    "renderer": str,
    "variant_titles": Mapping,
}


def known_attributes() -> set[str]:
    """Every attribute the interface declares (data and methods alike)."""
    return set(vars(Game)) | set(Game.__annotations__)


def declared(cls: type[Game]) -> dict[str, Any]:
    """The public data attributes the game's own classes (those below Game) set."""
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__[: cls.__mro__.index(Game)]):
        for name, value in vars(klass).items():
            if name.startswith("_") or callable(value) or isinstance(value, _DESCRIPTORS):
                continue
            found[name] = value
    return found


_DESCRIPTORS = (classmethod, staticmethod, property)


def problems(cls: type[Game]) -> list[str]:
    """What is wrong with the class's declarations, each said with its fix (empty: none)."""
    known = known_attributes()
    found: list[str] = []
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not NAME.fullmatch(name):
        found.append(
            f"name = {name!r}: give the game a registry name of lowercase letters, digits "
            "and _ (at most 32), starting with a letter"
        )
    for attribute, value in declared(cls).items():
        if attribute in known:
            kind = KINDS.get(attribute)
            if kind is not None and not _is_kind(value, kind):
                found.append(f"{attribute} = {value!r} is not a {_kind_name(kind)}")
            continue
        near = difflib.get_close_matches(attribute, sorted(known), n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        found.append(
            f"{attribute} is not an attribute of the game interface (judge.engine.Game), so "
            f"nothing would read it: {hint}Rename it, or make it private (_{attribute})"
        )
    return found


def _is_kind(value: Any, kind: type | tuple[type, ...]) -> bool:
    if kind is int and isinstance(value, bool):
        return False
    return isinstance(value, kind)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join("None" if k is type(None) else k.__name__ for k in kinds)


def checked(cls: type[Game]) -> type[Game]:
    """The class, once its declarations fit the interface; GameError naming each problem."""
    found = problems(cls)
    if found:
        where = f"{cls.__module__}:{cls.__qualname__}"
        raise GameError(f"game class {where} does not fit the game interface: " + "; ".join(found))
    return cls
