"""A game request (players, variant, options) checked by the game's own declared bounds: the
one validator of the service, for tournaments, quick matches, the API and the forms alike."""

from __future__ import annotations

from typing import Any

from judge.engine import GameError, Settings
from judge.games import game_class
from tournaments.errors import ServiceError


def checked_settings(game: str, players: int | None, variant: str | None, options: Any) -> Settings:
    """A game request checked by the game's own declared bounds (judge.options): the one
    validator of the service, called for the API and the web forms alike. Falsy players
    and variant mean the game's defaults; ServiceError says what is wrong."""
    try:
        return game_class(game).checked_settings(options, players=players or None, variant=variant)
    except GameError as error:
        raise ServiceError(str(error)) from None
