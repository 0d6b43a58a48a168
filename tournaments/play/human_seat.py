"""A person's seat: the referee's line channel, carried over Redis to a browser and back.

The referee treats a person like any bot (judge.channel.BotChannel): it sends the same
protocol lines and waits for an answer under the clock. This channel, in the worker,
keeps each line for the person in a Redis list (``person_lines``), which the table page
reads by position; the person's answers come back through another list (``person_answers``)
that ``recv`` waits on. Nothing but the seat's own protocol lines go into the first list,
so the person sees exactly what a bot in that seat would see.

The person never has to say "ready": the channel answers the greeting itself. An answer
names the move it answers (game and move numbers); a late answer to an earlier move is
dropped, never taken for the next one. A person who does not answer in time times out
like a silent bot: the seat is retired and the engine plays its fallback.
"""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any

import redis
from django.conf import settings

from judge import protocol
from judge.channel import BotGone, BotTimeout

#: The house policy that marks a seat's bot as a person at the table (one such Bot per
#: game, like the house bots; never a policy judge.bots knows, never rated).
PERSON_POLICY = "person"
#: How long a table's lists are kept after their last write (the match is over by then).
KEEP_SECONDS = 3600
#: Lines a seat may receive at most (a match has far fewer; bounds a broken loop).
MAX_LINES = 20_000
#: Bytes of one answer the site accepts (an action is a few cards).
MAX_ANSWER_BYTES = 2_000
#: What the answers list carries when the person leaves the table.
LEAVE = b"leave"
#: The largest wait in one BLPOP, so a closed channel is noticed within it.
POLL_SECONDS = 1.0


class TableUnavailable(RuntimeError):
    """No Redis carries live tables here (JUDGE_TABLE_REDIS_URL is empty)."""


def table_redis() -> redis.Redis:
    """The Redis of live tables; TableUnavailable when none is configured."""
    url = str(settings.JUDGE_TABLE_REDIS_URL)
    if not url:
        raise TableUnavailable("live tables need Redis (set JUDGE_TABLE_REDIS_URL)")
    if url.startswith("redis+socket://"):  # kombu's spelling of a Unix socket
        url = "unix://" + url.removeprefix("redis+socket://")
    return redis.Redis.from_url(url, socket_timeout=POLL_SECONDS + 5)


def lines_key(match_id: int) -> str:
    return f"cardjudge:table:{match_id}:lines"


def answers_key(match_id: int) -> str:
    return f"cardjudge:table:{match_id}:answers"


class PersonChannel:
    """The referee's channel to the person sitting in one seat of match ``match_id``."""

    def __init__(self, match_id: int, client: redis.Redis | None = None) -> None:
        self.match_id = match_id
        self.client = client or table_redis()
        self.waiting: tuple[int, int] | None = None  # (game, move) of the open question
        self.ready: deque[bytes] = deque()
        self.closed = False
        self._forget_early_answers()

    def _forget_early_answers(self) -> None:
        """Nothing answered before the match began counts, except leaving: a person who
        left while the worker was starting the match is not asked at all."""
        key = answers_key(self.match_id)
        with self.client.pipeline() as pipe:  # MULTI: nothing posted between is lost
            pipe.lrange(key, 0, -1)
            pipe.delete(key)
            early, _ = pipe.execute()
        if LEAVE in early:
            self.client.rpush(key, LEAVE)

    def send(self, line: bytes) -> None:
        if self.closed:
            raise BotGone("the person's seat was closed")
        message = json.loads(line)
        if message["type"] == "hello":
            self.ready.append(protocol.encode(protocol.ready()))
        elif message["type"] == "act":
            self.waiting = (int(message["game"]), int(message["move"]))
        key = lines_key(self.match_id)
        with self.client.pipeline() as pipe:
            pipe.rpush(key, line)
            pipe.ltrim(key, 0, MAX_LINES - 1)
            pipe.expire(key, KEEP_SECONDS)
            pipe.execute()

    def recv(self, deadline: float) -> bytes:
        if self.ready:
            return self.ready.popleft()
        while not self.closed:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotTimeout("the person did not answer in time")
            popped = self.client.blpop(
                [answers_key(self.match_id)], timeout=min(left, POLL_SECONDS)
            )
            if popped is None:
                continue
            if popped[1] == LEAVE:
                self.closed = True
                raise BotGone("the person left the table")
            answer = _answer_to(popped[1], self.waiting)
            if answer is not None:
                self.waiting = None
                return answer
        raise BotGone("the person's seat was closed")

    def stderr(self) -> bytes:
        return b""

    def close(self) -> None:
        self.closed = True


def _answer_to(raw: bytes | str, waiting: tuple[int, int] | None) -> bytes | None:
    """The protocol line of an answer posted for the open question, None for any other."""
    try:
        posted = json.loads(raw)
        if waiting is None or [posted["game"], posted["move"]] != list(waiting):
            return None
        return protocol.encode(protocol.action(posted["action"]))
    except (ValueError, KeyError, TypeError):
        return None


def post_leave(match_id: int) -> None:
    """The person leaves: their seat is closed at its open or next question, like a bot
    that exits, and the engine plays it to the end (the worker is free sooner)."""
    client = table_redis()
    with client.pipeline() as pipe:
        pipe.rpush(answers_key(match_id), LEAVE)
        pipe.expire(answers_key(match_id), KEEP_SECONDS)
        pipe.execute()


def post_answer(match_id: int, game: int, move: int, action: int) -> None:
    """Deliver the person's choice (an index into the legal list) for ``(game, move)``."""
    answer = json.dumps({"game": game, "move": move, "action": action})
    client = table_redis()
    with client.pipeline() as pipe:
        pipe.rpush(answers_key(match_id), answer)
        pipe.expire(answers_key(match_id), KEEP_SECONDS)
        pipe.execute()


def person_lines(match_id: int, after: int) -> list[dict[str, Any]]:
    """The protocol messages the person's seat was sent, from position ``after`` on."""
    raw = table_redis().lrange(lines_key(match_id), max(0, after), -1)
    return [json.loads(line) for line in raw]
