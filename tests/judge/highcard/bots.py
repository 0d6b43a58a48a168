"""High Card's own house bot: ``bold`` plays a card of rank 8 or higher and folds the rest."""

from __future__ import annotations

from typing import Any

from judge.bots import PolicyFactory
from judge.engine import Action

#: The lowest rank ``bold`` plays.
PLAYS_FROM = "89TJQKA"


class BoldPolicy:
    """Plays high cards, folds low ones: a threshold any sensible bot should match."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        card = observation.get("card") or "2c"
        return "play" if card[0] in PLAYS_FROM and "play" in legal else legal[-1]


POLICIES: dict[str, PolicyFactory] = {"bold": BoldPolicy}
