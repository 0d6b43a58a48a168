"""Protocol v1: encoding, the checks on bots' answers, and botkit on the bot's side."""

from __future__ import annotations

import io
import json
from typing import Any

import jsonschema
import pytest

from judge import protocol
from judge.bots.house_main import HouseBot
from judge.runtime import botkit
from tests.judge.fakes import schema, validate_message

LEGAL: list[Any] = ["pass", ["3c"], ["3c", "3d"]]


def answer(value: Any) -> bytes:
    return json.dumps({"type": "action", "action": value}).encode()


@pytest.mark.parametrize(
    ("value", "expected"),
    [("pass", "pass"), (["3c", "3d"], ["3c", "3d"]), (0, "pass"), (2, ["3c", "3d"])],
)
def test_an_action_is_accepted_by_value_or_by_index(value: Any, expected: Any) -> None:
    assert protocol.parse_action(answer(value), LEGAL) == expected
    jsonschema.validate({"type": "action", "action": value}, schema("action"))


@pytest.mark.parametrize(
    ("line", "kind", "says"),
    [
        (b"\xc3\x28", "not_utf8", "not UTF-8"),
        (b"{", "not_json", "not one JSON value"),
        (b'{"type":"action","action":NaN}', "not_json", "NaN is not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not_json", "not one JSON value"),
        (b'"pass"', "bad_message", "expected a JSON object, got str"),
        (b'{"action":"pass"}', "bad_message", '"type": "action"'),
        (b'{"type":"action"}', "bad_message", 'needs the key "action"'),
        (b'{"type":"action","action":"pass","why":1}', "bad_message", "unexpected keys ['why']"),
        (b'{"type":"action","action":{"x":1}}', "bad_message", "a string, a list of strings"),
        (b'{"type":"action","action":["3c",3]}', "bad_message", "a string, a list of strings"),
        (b'{"type":"action","action":false}', "bad_message", "a string, a list of strings"),
        (b'{"type":"action","action":-1}', "illegal_action", "index -1 is outside"),
        (b'{"type":"action","action":3}', "illegal_action", "index 3 is outside"),
        (b'{"type":"action","action":["3d","3c"]}', "illegal_action", "not one of the legal"),
        (b'{"type":"action","action":"fold"}', "illegal_action", "'fold' is not one of"),
    ],
)
def test_a_bad_answer_names_its_fault_kind_and_what_was_wrong(
    line: bytes, kind: str, says: str
) -> None:
    with pytest.raises(protocol.BadAnswer) as caught:
        protocol.parse_action(line, LEGAL)
    assert caught.value.kind == kind
    assert says in str(caught.value)


def test_ready_must_be_exactly_a_ready_object() -> None:
    protocol.parse_ready(b'{"type":"ready"}')
    for line in (b'{"type":"ready","name":"x"}', b'{"type":"hello"}', b"ready"):
        with pytest.raises(protocol.BadAnswer):
            protocol.parse_ready(line)


def test_messages_are_compact_utf8_lines() -> None:
    line = protocol.encode(protocol.ready())
    assert line == b'{"type":"ready"}' and b"\n" not in protocol.encode({"t": "a\nb"})
    with pytest.raises(ValueError):
        protocol.encode({"x": float("nan")})


def test_the_schemas_refuse_what_the_referee_must_never_send() -> None:
    good = protocol.act(
        game=0, move=0, seat=1, observation={}, legal=["deal"], move_s=1.0, bank_s=0.0
    )
    validate_message(good)
    for broken in ({**good, "legal": []}, {**good, "seat": -1}, {**good, "secret": 1}):
        with pytest.raises(jsonschema.ValidationError):
            validate_message(broken)


def hello() -> dict[str, Any]:
    return protocol.hello(
        bot=0,
        seat=0,
        game="bigtwo",
        variant="standard",
        options={},
        players=2,
        games=1,
        time={"startup_s": 1, "move_s": 1, "bank_s": 1},
    )


def script(*messages: dict[str, Any]) -> io.StringIO:
    return io.StringIO("".join(json.dumps(m) + "\n" for m in messages))


def test_botkit_answers_hello_act_and_stops_at_match_over() -> None:
    act = protocol.act(
        game=0, move=0, seat=0, observation={"n": 1}, legal=["a", "b"], move_s=1, bank_s=1
    )
    over = protocol.match_over(bot=0, scores=[1, -1], places=[1, 2])
    out = io.StringIO()
    botkit.run(lambda observation, legal: legal[-1], script(hello(), act, over, act), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers == [{"type": "ready"}, {"type": "action", "action": "b"}]
    for line in out.getvalue().splitlines():
        validate_message(json.loads(line))


def test_botkit_calls_an_objects_hooks() -> None:
    seen: list[str] = []

    class Bot:
        def hello(self, message: dict[str, Any]) -> None:
            seen.append("hello " + message["game"])

        def act(self, observation: Any, legal: list[Any], message: dict[str, Any]) -> int:
            seen.append(f"act seat {message['seat']}")
            return 0

        def game_over(self, message: dict[str, Any]) -> None:
            seen.append(f"over {message['places']}")

    act = protocol.act(game=0, move=0, seat=1, observation={}, legal=["x"], move_s=1, bank_s=1)
    over = protocol.game_over(game=0, seat=1, scores=[0, 1], places=[2, 1], revealed={})
    botkit.run(Bot(), script(hello(), act, over), io.StringIO())
    assert seen == ["hello bigtwo", "act seat 1", "over [2, 1]"]


def test_a_house_bot_plays_the_game_named_in_hello() -> None:
    from judge.games import new_game

    game = new_game("bigtwo", seed=4, players=2)
    seat = game.to_act()[0]
    act = protocol.act(
        game=0,
        move=0,
        seat=seat,
        observation=game.observation(seat),
        legal=game.legal_actions(seat),
        move_s=1,
        bank_s=1,
    )
    out = io.StringIO()
    botkit.run(HouseBot("greedy", 1), script(hello(), act), out)
    chosen = json.loads(out.getvalue().splitlines()[1])["action"]
    assert chosen in game.legal_actions(seat)
