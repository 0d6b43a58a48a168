"""Which kinds of situation a bot met in a match, read from the match's record.

Each game declares the kinds of decision its bots meet (``Game.situations``: leading a
trick, following a pair, facing a bet at the raise cap, ...) and says which ones a seat
meets now (``Game.situation``). A new version's check (tournaments.play.version_checks)
plays until its bot has met each kind a few times, so a fault that only some positions
bring out (a crash whenever the trick is a pair) is found before rated play; these
helpers replay a check match's record to count what the bot met, and to name the
situation of the decision it faulted in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from judge.engine import Game
from judge.referee import GameMaker, default_game_maker


def _replay_steps(played: Mapping[str, Any], make: GameMaker) -> Iterator[tuple[int, int, Game]]:
    """(step, seat, game before that step's action) for every step of one recorded game."""
    record = played["record"]
    game = make(record["seed"], record["players"], record["variant"], record["options"])
    for step, (seat, action) in enumerate(record["actions"]):
        yield step, seat, game
        game.apply(seat, action)


def met(record: Mapping[str, Any], bot: int, make_game: GameMaker | None = None) -> Counter[str]:
    """How many of bot ``bot``'s decisions in the match fell in each situation kind: the
    decisions it was asked (with its faulting one), not the fallbacks played for it
    once it was retired (their time is None in the record)."""
    make = make_game or default_game_maker(record["header"]["game"])
    faulted = {
        (fault["game"], fault["move"])
        for fault in record.get("faults") or []
        if fault.get("bot") == bot and fault.get("move") is not None
    }
    counts: Counter[str] = Counter()
    for played in record["games"]:
        if bot not in played["seating"]:
            continue
        mine = played["seating"].index(bot)
        times = played.get("times") or []
        for step, seat, game in _replay_steps(played, make):
            asked = step < len(times) and times[step] is not None
            if seat == mine and (asked or (played["index"], step) in faulted):
                counts.update(game.situation(seat))
    return counts


def at_step(
    record: Mapping[str, Any], game_index: int, move: int, make_game: GameMaker | None = None
) -> tuple[str, ...]:
    """The situation kinds of the decision asked at step ``move`` of game ``game_index``
    (both from 0); empty when the record has no such step."""
    make = make_game or default_game_maker(record["header"]["game"])
    for played in record["games"]:
        if played["index"] != game_index:
            continue
        for step, seat, game in _replay_steps(played, make):
            if step == move:
                return game.situation(seat)
    return ()


def words(kinds: tuple[str, ...] | list[str], declared: Mapping[str, str]) -> str:
    """Situation kinds as people read them: "following a pair; only pass"."""
    return "; ".join(declared.get(kind, kind) for kind in kinds)
