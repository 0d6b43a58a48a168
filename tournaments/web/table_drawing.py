"""What a person's table and a match's live view need to draw the table as the replay does
(static/web/table_draw.js): the game's renderer, its private keys, the seat count and each
game's seat names, numbered from 1. A duplicate match rotates its seats from one block of
games to the next (judge.referee.schedule), so the names are given per game."""

from __future__ import annotations

from typing import Any

from judge.games import game_class
from judge.referee import rotations
from tournaments.models import Match


def seat_labels(bots: list[str], seating: list[int], you: int | None = None) -> list[str]:
    """Each seat's bot name with its seat number from 1; ``you``: the person's seat."""
    return [
        f"{'You' if seat == you else bots[bot]} (seat {seat + 1})"
        for seat, bot in enumerate(seating)
    ]


def drawing(match: Match, bots: list[str], you: int | None = None) -> dict[str, Any]:
    """The table's drawing data of ``match`` (ready for json_script); ``bots``: each bot's
    name in seat order (its Seat rows' order)."""
    engine = game_class(match.game)
    players = len(bots)
    seatings = rotations(players) if match.duplicate else [list(range(players))]
    return {
        "renderer": engine.renderer or "generic",
        "private_keys": list(engine.private_keys),
        "players": players,
        "names": [
            seat_labels(bots, seating, you) for seating in seatings for _ in range(match.games)
        ],
    }


def bot_names(match: Match) -> list[str]:
    """Each seat's bot name and version, in seat order (one query)."""
    seats = match.seats.order_by("index").values_list("version__bot__name", "version__number")
    return [f"{name} v{number}" for name, number in seats]
