"""Template context every page gets: the games of the registry for the navigation bar."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from judge import games


def game_menu(request: HttpRequest) -> dict[str, Any]:
    """``menu_games``: (name, title) of every registered game, in the registry's order."""
    return {"menu_games": games.choices()}
