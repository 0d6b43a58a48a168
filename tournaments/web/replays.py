"""A stored match record as the replay viewer steps through it, from one seat or from all.

The record holds each game's seed and actions; the engine plays them again, so every
frame is exactly what the engine showed: ``observation(seat)`` before each action, the
legal actions the acting seat had, what it answered and the time it took (None: the seat
had been retired and the engine played its fallback), each seat's bot name, and the game
told in words (judge.narration and the game's own narration.py: what ended each hand,
who won and why). Records
are stored only once a match is over, so the all-seats view may show every hidden card.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from judge.engine import Game, GameError, IllegalActionError, JSONDict
from judge.games import starting_game
from judge.narration import Narration, public_view, seat_names

#: A game or seat number as a request may give it: ASCII digits, not too many (``"²"`` and
#: 5,000-digit numbers pass ``str.isdigit`` but ``int`` refuses them).
SMALL_NUMBER = re.compile(r"[0-9]{1,6}")


class ReplayError(ValueError):
    """A record or a request the viewer cannot show; the message says what is wrong."""


def requested_frames(record: Mapping[str, Any], game: str, seat: str) -> JSONDict:
    """``frames`` for a request's text parameters: a game number and a seat (or "all")."""
    games = record.get("games", [])
    if not SMALL_NUMBER.fullmatch(game) or int(game) >= len(games):
        raise ReplayError(f"game {game!r}: this match has games 0 to {len(games) - 1}")
    index = int(game)
    perspective = parse_perspective(seat, games[index]["record"]["players"])
    return frames(record, index, perspective)


def checked_request(game: str, seat: str, games: int, players: int) -> tuple[int, str]:
    """A request's game number and seat ("all" or a number) checked against a match of
    ``games`` games at a table of ``players``; ReplayError says what is wrong."""
    if not SMALL_NUMBER.fullmatch(game) or int(game) >= games:
        raise ReplayError(f"game {game!r}: this match has games 0 to {games - 1}")
    perspective = parse_perspective(seat, players)
    return int(game), "all" if perspective is None else str(perspective)


def parse_perspective(text: str, players: int) -> int | None:
    """``"all"`` (None) or a seat number below ``players``; ReplayError otherwise."""
    if text in ("", "all"):
        return None
    if not SMALL_NUMBER.fullmatch(text) or int(text) >= players:
        raise ReplayError(f"seat {text!r}: choose 'all' or a seat from 0 to {players - 1}")
    return int(text)


def frames(record: Mapping[str, Any], index: int, perspective: int | None) -> JSONDict:
    """Every step of game ``index`` of the record, seen from ``perspective`` (None: all)."""
    games = record.get("games", [])
    if not 0 <= index < len(games):
        raise ReplayError(f"game {index}: this match has games 0 to {len(games) - 1}")
    played = games[index]
    game_record = played["record"]
    try:
        game = starting_game(game_record)
    except (GameError, KeyError) as error:
        raise ReplayError(f"game {index} cannot be set up again: {error}") from None
    if perspective is not None and not 0 <= perspective < game.players:
        raise ReplayError(f"seat {perspective}: this game has seats 0 to {game.players - 1}")
    bots = [bot.get("name", "") for bot in record.get("header", {}).get("bots", [])]
    names = seat_names(bots, played["seating"])
    story = Narration(game.name, names)
    story.start(public_view(game))
    steps = []
    for (seat, action), used in zip(game_record["actions"], played["times"], strict=True):
        step: JSONDict = {
            "seat": seat,
            "action": action,
            "time": used,
            "view": view(game, perspective),
        }
        if perspective is None or perspective == seat:
            step["legal"] = game.legal_actions(seat)
        steps.append(step)
        try:
            game.apply(seat, action)
        except IllegalActionError as error:
            raise ReplayError(f"game {index} does not replay: {error}") from None
        story.after(len(steps) - 1, seat, public_view(game))
    revealed = game.revealed() if game.is_over() else None
    return {
        "index": index,
        "game": game.name,
        "renderer": game.renderer or "generic",
        "private_keys": list(game.private_keys),
        "variant": game.variant,
        "players": game.players,
        "perspective": perspective,
        "seating": played["seating"],
        "names": names,
        "result": played["result"],
        "faults": [f for f in record.get("faults", []) if f.get("game") == index],
        "steps": steps,
        "final": view(game, perspective),
        "revealed": revealed,
        "events": story.events,
        "outcome": story.outcome(played["result"], revealed or {}, game.variant),
    }


def view(game: Game, perspective: int | None) -> JSONDict:
    """What ``perspective`` sees now; for None, the acting seat's view plus every seat's
    private cards under ``"private"``."""
    if perspective is not None:
        return game.observation(perspective)
    acting = game.to_act()
    base = game.observation(acting[0] if acting else 0)
    keys = game.private_keys  # only their own seat sees them; the rest is public
    if keys:
        seen = [game.observation(seat) for seat in range(game.players)]
        base["private"] = [{key: obs.get(key) for key in keys} for obs in seen]
    return base
