"""The public feed of a running match: what any spectator may see, move by move.

The worker wraps each game the referee makes (``feed_maker``) so that after every move it
appends one event to a Redis list: the game and move numbers, the seat that acted, the
action and the table's public view. The public view is what every seat sees alike: the keys of the
seats' observations whose values are equal for all of them (``public_view``). A hand, a
hidden card or an undisclosed declaration differs between seats, so it never enters the
feed; played cards, bets and scores are the same for everyone and do. This needs no
knowledge of any game. The action is published as the game says every seat learns it
(``Game.public_action``): a secret one (a sealed declaration) is not, nor is its seat.

Each event also says in words what the move ended, as the replay says it (``say``: the
game's own narration, judge.narration, read from the views before and after the move as
the replay reads them), and a game's last event how it ended (``outcome``: the scores
and places; never the cards the engine reveals at the end, which a duplicate match deals
again). The
narration names seats by a token (``{seat 0}``) the page replaces with the seat's name.

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

from judge import narration
from judge.engine import Action, Game, JSONDict, Seat
from judge.referee import GameMaker, default_game_maker
from tournaments.play.human_seat import KEEP_SECONDS, TableUnavailable, table_redis

log = logging.getLogger(__name__)

#: Seconds a spectator's view lags the table.
LIVE_DELAY_SECONDS = 2.0
#: Events one match keeps at most (the oldest are dropped beyond it).
MAX_EVENTS = 5_000
#: Seconds a batch of events may wait before it is published.
FLUSH_SECONDS = 0.25
#: Seconds a spectator's visit keeps a match's feed on.
WATCH_SECONDS = 30
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
    """Appends events for one match, in batches; goes quiet after the first Redis failure.

    The table's view costs an observation per seat, and a Redis write costs a round trip,
    so a move is not published on its own: events gather and go out together, with the
    view of the latest, when ``FLUSH_SECONDS`` have passed, a game is over, or a person
    is to act (they must see the bots' moves before they choose). With no person at the
    table and nobody watching (``watch`` was not called in the last ``WATCH_SECONDS``),
    nothing is gathered: an unwatched match costs a check every ``FLUSH_SECONDS``.
    """

    def __init__(self, match_id: int, people: frozenset[int]) -> None:
        self.match_id = match_id
        self.people = people
        self.move = 0
        self.pending: list[JSONDict] = []
        #: Each game's story so far: the view after its last published move as narration
        #: reads it (seat 0's observation without the private keys: one observation).
        self.stories: dict[int, narration.Narration] = {}
        self.flushed = time.monotonic()
        try:
            self.client: redis.Redis | None = table_redis()
        except TableUnavailable:
            self.client = None
        self.watched = bool(people) or self._is_watched()

    def gathering(self) -> bool:
        """Whether the next move is gathered (asked before it is applied, so an unwatched
        match's move costs no public action: a duel's game is about 80 moves). Every
        ``FLUSH_SECONDS`` it asks Redis again whether someone watches."""
        if self.client is None:
            return False
        now = time.monotonic()
        if now - self.flushed >= FLUSH_SECONDS and not self.people:
            self.watched = self._is_watched()
            if not self.watched:
                self.flushed = now
        return self.watched

    def skip(self) -> None:
        """A move that is not gathered: only counted."""
        self.move += 1

    def publish(self, game_index: int, seat: Seat, game: Game, public: Action | None) -> None:
        """Gather a move ``gathering`` said to gather; publish the batch when it is due."""
        self.move += 1
        if self.client is None:
            return
        now = time.monotonic()
        due = now - self.flushed >= FLUSH_SECONDS
        over = game.is_over()
        event: JSONDict = {"game": game_index, "move": self.move - 1, "over": over}
        if public is None:  # a secret choice: neither it nor who made it
            event["seat"] = None
        else:
            event["seat"], event["action"] = seat, public
        self._narrate(event, game_index, seat, game)
        self.pending.append(event)
        if due or over or self.people.intersection(game.to_act() if not over else ()):
            self._flush(game, now)

    def _narrate(self, event: JSONDict, game_index: int, seat: Seat, game: Game) -> None:
        """Add what the move ended (``say``) and, at a game's end, how it ended
        (``outcome``), from the public views before and after it (none for a game's first
        watched move: nothing before it was seen)."""
        view = narration.public_view(game)
        story = self.stories.get(game_index)
        if story is None:
            names = [seat_token(s) for s in range(game.players)]
            story = self.stories[game_index] = narration.Narration(game.name, names)
            story.start(view)
        else:
            told = len(story.events)
            story.after(event["move"], seat, view)
            if len(story.events) > told:
                event["say"] = [line["say"] for line in story.events[told:]]
        if game.is_over():
            story.before = view
            event["outcome"] = story.outcome(game.result().to_json(), {}, game.variant)
            del self.stories[game_index]

    def _is_watched(self) -> bool:
        try:
            return bool(self.client and self.client.exists(watch_key(self.match_id)))
        except redis.RedisError:
            return False

    def _flush(self, game: Game, now: float) -> None:
        self.pending[-1]["view"] = public_view(game)
        stamp = time.time()
        lines = [json.dumps({"t": stamp, **e}, separators=(",", ":")) for e in self.pending]
        self.pending, self.flushed = [], now
        key = feed_key(self.match_id)
        try:
            assert self.client is not None
            with self.client.pipeline() as pipe:
                pipe.rpush(key, *lines)
                pipe.ltrim(key, -MAX_EVENTS, -1)
                pipe.expire(key, KEEP_SECONDS)
                pipe.execute()
        except redis.RedisError as error:
            log.warning("match %s: live feed stopped: %s", self.match_id, error)
            self.client = None


def seat_token(seat: Seat) -> str:
    """How the feed's words name seat ``seat`` (live_match.js puts its name there)."""
    return f"{{seat {seat}}}"


def watch_key(match_id: int) -> str:
    return f"cardjudge:live:{match_id}:watched"


def watch(match_id: int) -> None:
    """Someone follows match ``match_id``: its worker publishes its moves for a while."""
    try:
        table_redis().set(watch_key(match_id), b"1", ex=WATCH_SECONDS)
    except (TableUnavailable, redis.RedisError):
        return


def feed_maker(match_id: int, game_name: str, people: frozenset[int] = frozenset()) -> GameMaker:
    """The registry's engine of ``game_name``, each game reporting its moves to the feed;
    ``people``: the seats persons play (the feed is always on for them)."""
    make = default_game_maker(game_name)
    feed = _Feed(match_id, people)
    made = [0]

    def maker(seed: int, players: int, variant: str | None, options: Mapping[str, Any]) -> Game:
        game = make(seed, players, variant, options)
        index = made[0]  # the referee makes the match's games in order
        made[0] += 1
        apply = game.apply

        def apply_and_publish(seat: Seat, action: Action) -> None:
            if not feed.gathering():
                apply(seat, action)
                feed.skip()
                return
            public = game.public_action(seat, action) if seat in game.to_act() else None
            apply(seat, action)
            feed.publish(index, seat, game, public)

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
