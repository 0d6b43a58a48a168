"""Scripted fake channels for referee tests: expect this message, answer that line.

A fake bot is a function from each message the referee sends to a ``Reply`` (or None for
messages that need no answer). Time is simulated by a ``FakeClock`` shared with the
referee: a reply's ``delay`` advances it, and a delay past the deadline times out.
"""

from __future__ import annotations

import functools
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from judge.channel import BotTimeout

SCHEMAS = Path(__file__).resolve().parents[2] / "judge" / "schemas"


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Reply:
    """What a fake bot does: after ``delay`` seconds, answer ``line`` or raise ``error``."""

    line: bytes = b""
    delay: float = 0.0
    error: Exception | None = None
    late: bool = False  # deliver the line even past the deadline (a racing channel)
    cpu: float = 0.0  # CPU seconds spent over the delay (``CpuFakeChannel`` counts them)


def ready() -> Reply:
    return Reply(b'{"type":"ready"}')


def action(value: Any, delay: float = 0.0) -> Reply:
    return Reply(json.dumps({"type": "action", "action": value}).encode(), delay)


Behaviour = Callable[[dict[str, Any]], "Reply | None"]


def first_legal(message: dict[str, Any]) -> Reply | None:
    if message["type"] == "hello":
        return ready()
    if message["type"] == "act":
        return action(0)
    return None


@dataclass
class FakeChannel:
    behaviour: Behaviour
    clock: FakeClock
    sent: list[dict[str, Any]] = field(default_factory=list)
    pending: deque[Reply] = field(default_factory=deque)
    closed: bool = False
    log: bytes = b"fake log"
    starts: int = 0

    def send(self, line: bytes) -> None:
        assert not self.closed, "the referee wrote to a closed channel"
        message = json.loads(line)
        self.sent.append(message)
        reply = self.behaviour(message)
        if reply is not None:
            self.pending.append(reply)

    def recv(self, deadline: float) -> bytes:
        assert not self.closed, "the referee read from a closed channel"
        reply = self.pending.popleft() if self.pending else Reply(delay=1e9)
        if self.clock.now + reply.delay > deadline and not reply.late:
            self.clock.now = max(self.clock.now, deadline)
            raise BotTimeout("deadline passed")
        self.clock.now += reply.delay
        if reply.error is not None:
            raise reply.error
        return reply.line

    def stderr(self) -> bytes:
        return self.log

    def close(self) -> None:
        self.closed = True


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.json").read_text())
    return loaded


@functools.cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    loaded = schema(name)
    validator_class = jsonschema.validators.validator_for(loaded)
    validator_class.check_schema(loaded)
    return validator_class(loaded)


def validate_message(message: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless ``message`` fits its type's schema."""
    _validator(message["type"]).validate(message)


class Table:
    """Fake bots for a match: ``table.start`` is the referee's starter."""

    def __init__(self, *behaviours: Behaviour) -> None:
        self.clock = FakeClock()
        self.channels = [FakeChannel(b, self.clock) for b in behaviours]

    def start(self, index: int) -> FakeChannel:
        """Bot ``index``'s channel, reopened as a fresh process if it was closed before."""
        channel = self.channels[index]
        channel.starts += 1
        channel.closed = False
        channel.pending.clear()
        return channel


@dataclass
class CpuFakeChannel(FakeChannel):
    """A fake bot whose CPU seconds are counted (``judge.channel.CpuClocked``): a reply's
    ``cpu`` seconds are spent evenly over its ``delay``, and a wait that ends before the
    reply is due leaves the rest of it pending (the referee looks at the CPU meanwhile)."""

    cpu: float = 0.0
    #: CPU seconds the bot burns per second of its reply's delay (set per reply).
    rates: deque[float] = field(default_factory=deque)

    def send(self, line: bytes) -> None:
        before = len(self.pending)
        super().send(line)
        for reply in list(self.pending)[before:]:
            self.rates.append(reply.cpu / reply.delay if reply.delay else 0.0)

    def recv(self, deadline: float) -> bytes:
        assert not self.closed, "the referee read from a closed channel"
        if not self.pending:
            self.clock.now = max(self.clock.now, deadline)
            raise BotTimeout("deadline passed")
        reply, rate = self.pending[0], self.rates[0]
        if self.clock.now + reply.delay > deadline and not reply.late:
            waited = max(0.0, deadline - self.clock.now)
            self.clock.now += waited
            self.cpu += waited * rate
            self.pending[0] = Reply(reply.line, reply.delay - waited, reply.error, cpu=0.0)
            raise BotTimeout("deadline passed")
        self.pending.popleft()
        self.rates.popleft()
        self.clock.now += reply.delay
        self.cpu += reply.delay * rate
        if reply.error is not None:
            raise reply.error
        return reply.line

    def cpu_seconds(self) -> float:
        return self.cpu


class CpuTable(Table):
    """Fake bots whose channels count CPU seconds (``CpuFakeChannel``)."""

    def __init__(self, *behaviours: Behaviour) -> None:
        self.clock = FakeClock()
        self.channels = [CpuFakeChannel(b, self.clock) for b in behaviours]

    def start(self, index: int) -> FakeChannel:
        channel = super().start(index)
        assert isinstance(channel, CpuFakeChannel)
        channel.rates.clear()
        return channel
