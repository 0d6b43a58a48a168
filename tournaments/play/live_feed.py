"""The public feed of a running match: what any spectator may see, move by move.

The worker wraps each game the referee makes (``feed_maker``) so that after every move it
appends one event to a Redis list: the game and move numbers, the seat that acted, and the
table's public view. The public view is what every seat sees alike: the keys of the
seats' observations whose values are equal for all of them (``public_view``). A hand, a
hidden card or an undisclosed declaration differs between seats, so it never enters the
feed; played cards, bets and scores are the same for everyone and do. This needs no
knowledge of any game. The action itself is not published (it may be secret, such as a
declaration); the public view shows its public effect.

Readers ask for events after a position; spectators get only events older than
``LIVE_DELAY_SECONDS`` (a short delay, so a spectator cannot relay a table in real time).
Publishing is best effort: a Redis that fails stops the feed of that match, never the match.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

import redis

from judge.engine import Action, Game, JSONDict, Seat
from judge.referee import GameMaker, default_game_maker
from tournaments.play.human_seat import KEEP_SECONDS, TableUnavailable, table_redis

log = logging.getLogger(__name__)

#: Seconds a spectator's view lags the table.
LIVE_DELAY_SECONDS = 2.0
#: Events one match keeps at most (the oldest are dropped beyond it).
MAX_EVENTS = 5_000
#: Events one read returns at most.
READ_LIMIT = 200


def feed_key(match_id: int) -> str:
    return f"cardjudge:live:{match_id}:events"


def public_view(game: Game) -> JSONDict:
    """The observation's keys every seat sees with the same value, and who is to act."""
    views = [game.observation(seat) for seat in range(game.players)]
    shared = {
        key: value
        for key, value in views[0].items()
        if all(key in other and other[key] == value for other in views[1:])
    }
    return shared | {"to_act": list(game.to_act()) if not game.is_over() else []}


class _Feed:
    """Appends events for one match; goes quiet after the first Redis failure."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.move = 0
        try:
            self.client: redis.Redis | None = table_redis()
        except TableUnavailable:
            self.client = None

    def publish(self, game_index: int, seat: Seat, game: Game) -> None:
        if self.client is None:
            return
        event = {
            "t": time.time(),
            "game": game_index,
            "move": self.move,
            "seat": seat,
            "over": game.is_over(),
            "view": public_view(game),
        }
        self.move += 1
        key = feed_key(self.match_id)
        try:
            with self.client.pipeline() as pipe:
                pipe.rpush(key, json.dumps(event, separators=(",", ":")))
                pipe.ltrim(key, -MAX_EVENTS, -1)
                pipe.expire(key, KEEP_SECONDS)
                pipe.execute()
        except redis.RedisError as error:
            log.warning("match %s: live feed stopped: %s", self.match_id, error)
            self.client = None


def feed_maker(match_id: int, game_name: str) -> GameMaker:
    """The registry's engine of ``game_name``, each game reporting its moves to the feed."""
    make = default_game_maker(game_name)
    feed = _Feed(match_id)
    made = [0]

    def maker(seed: int, players: int, variant: str | None, options: Mapping[str, Any]) -> Game:
        game = make(seed, players, variant, options)
        index = made[0]  # the referee makes the match's games in order
        made[0] += 1
        apply = game.apply

        def apply_and_publish(seat: Seat, action: Action) -> None:
            apply(seat, action)
            feed.publish(index, seat, game)

        setattr(game, "apply", apply_and_publish)  # noqa: B010 (an instance's own hook)
        return game

    return maker


def read_feed(match_id: int, after: int, delay: float) -> tuple[list[JSONDict], int]:
    """Events from position ``after`` that are at least ``delay`` seconds old, and the
    position to ask from next."""
    try:
        raw = table_redis().lrange(feed_key(match_id), max(0, after), after + READ_LIMIT - 1)
    except (TableUnavailable, redis.RedisError):
        return [], after
    cutoff = time.time() - delay
    events: list[JSONDict] = []
    for line in raw:
        event = json.loads(line)
        if event["t"] > cutoff:
            break
        events.append(event)
    return events, after + len(events)
