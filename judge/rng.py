"""Deterministic randomness: every shuffle comes from a generator seeded by its path.

No global random state is ever used, so a match is reproducible from its seed: the deal
of game ``g`` of a match with seed ``s`` always uses ``rng(s, g)``, and an engine that deals
several times within a game adds the deal number (``rng(s, g, d)``).
"""

from __future__ import annotations

import hashlib
import random


def _material(parts: tuple[int | str, ...]) -> str:
    return "/".join(str(part) for part in parts)


def rng(*parts: int | str) -> random.Random:
    """A generator determined only by ``parts`` (stable across runs and Python versions)."""
    return random.Random(_material(parts))


def derive_seed(*parts: int | str) -> int:
    """A 63-bit seed determined by ``parts``: for naming sub-seeds (one per game of a match)."""
    digest = hashlib.sha256(_material(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
