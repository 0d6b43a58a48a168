"""Fault reports that say how to fix (judge.fault_hints): each likely cause of an illegal
answer, in each game, against the legal list its engine really offers, through the
protocol's parser as the referee calls it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from judge import fault_hints, protocol
from judge.engine import Action, Game
from judge.games import new_game
from judge.referee import BotInfo, MatchSpec, play_match
from tests.judge.fakes import Reply, Table, action, first_legal, ready


def legal_when(name: str, players: int, wanted: Callable[[list[Action]], bool]) -> list[Action]:
    """The first legal list of a seeded game that ``wanted`` accepts (each seat plays its
    last legal action until then)."""
    game: Game = new_game(name, 7, players=players)
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        if wanted(legal):
            return legal
        game.apply(seat, legal[-1])
    raise AssertionError(f"no {name} position offers what the test needs")


def fault_of(value: Any, legal: list[Action]) -> str:
    """The fault message the referee stores for an answer ``value``."""
    line = json.dumps({"type": "action", "action": value}).encode()
    with pytest.raises(protocol.BadAnswer) as caught:
        protocol.parse_action(line, legal)
    return str(caught.value)


def plays(legal: list[Action], size: int) -> list[list[str]]:
    return [a for a in legal if isinstance(a, list) and len(a) == size]


BIGTWO_SINGLES = legal_when("bigtwo", 4, lambda legal: len(plays(legal, 1)) >= 2)
BIGTWO_PAIRS = legal_when("bigtwo", 4, lambda legal: bool(plays(legal, 2)))
BIGTWO_FOLLOWING = legal_when("bigtwo", 4, lambda legal: "pass" in legal and len(legal) > 1)
BIGTWO_FIVES = legal_when("bigtwo", 4, lambda legal: bool(plays(legal, 5)))
OCEANS = legal_when("oceans11", 2, lambda legal: "deal" in legal)
EXPOSE = legal_when("fifteen35", 3, lambda legal: str(legal[0]).startswith("expose "))
BETTING = legal_when("fifteen35", 3, lambda legal: "check" in legal)


def test_a_card_sent_as_a_string_is_told_a_play_is_a_list() -> None:
    card = plays(BIGTWO_SINGLES, 1)[0][0]
    said = fault_of(card, BIGTWO_SINGLES)
    assert said.startswith(f"{card!r} is not one of the legal actions; ")
    assert f'did you mean ["{card}"]?' in said and "a play is a list of cards" in said


def test_a_pair_sent_as_one_string_is_told_the_list_it_meant() -> None:
    pair = plays(BIGTWO_PAIRS, 2)[0]
    said = fault_of(" ".join(pair), BIGTWO_PAIRS)
    assert f"did you mean {json.dumps(pair)}?" in said and "a list of cards" in said


@pytest.mark.parametrize(
    ("sent", "legal", "meant"),
    [
        (["3D"], [["3d"], ["3d", "3h"]], ["3d"]),
        ("Deal", OCEANS, "deal"),
        ("CHECK", BETTING, "check"),
    ],
    ids=["bigtwo", "oceans11", "fifteen35"],
)
def test_a_wrong_case_is_named(sent: Any, legal: list[Action], meant: Action) -> None:
    said = fault_of(sent, legal)
    assert f"did you mean {json.dumps(meant)}?" in said and "a wrong case" in said


@pytest.mark.parametrize(
    ("sent", "legal", "meant"),
    [
        (["pass"], BIGTWO_FOLLOWING, "pass"),
        (["deal"], OCEANS, "deal"),
        (["check"], BETTING, "check"),
    ],
    ids=["bigtwo", "oceans11", "fifteen35"],
)
def test_a_string_action_sent_as_a_list_is_told_it_is_a_string(
    sent: Any, legal: list[Action], meant: Action
) -> None:
    said = fault_of(sent, legal)
    assert f"did you mean {json.dumps(meant)}?" in said and "a string, not a list" in said


def test_a_missing_part_is_named_in_each_game() -> None:
    said = fault_of("expose", EXPOSE)
    assert f"did you mean {json.dumps(EXPOSE[0])}?" in said and "a missing part" in said
    five = plays(BIGTWO_FIVES, 5)[0]
    said = fault_of(five[:4], BIGTWO_FIVES)  # no play has four cards
    assert "did you mean" in said and "a missing card" in said
    said = fault_of("dea", OCEANS)
    assert 'did you mean "deal"?' in said


@pytest.mark.parametrize(
    "legal", [BIGTWO_FOLLOWING, OCEANS, BETTING], ids=["bigtwo", "oceans11", "fifteen35"]
)
def test_a_missing_action_field_says_where_the_action_was(legal: list[Action]) -> None:
    line = json.dumps({"type": "action", "move": legal[0]}).encode()
    with pytest.raises(protocol.BadAnswer) as caught:
        protocol.parse_action(line, legal)
    said = str(caught.value)
    assert caught.value.kind == protocol.BAD_MESSAGE
    assert f'did you mean {{"type": "action", "action": {json.dumps(legal[0])}}}?' in said
    assert 'the action was under "move"' in said and 'a missing field "action"' in said


def test_cards_in_another_order_and_spaces_and_indexes() -> None:
    pair = plays(BIGTWO_PAIRS, 2)[0]
    said = fault_of(pair[::-1], BIGTWO_PAIRS)
    assert f"did you mean {json.dumps(pair)}?" in said and "another order" in said
    assert 'did you mean "check"? (extra spaces' in fault_of(" check\n", BETTING)
    said = fault_of("0", OCEANS)
    assert 'did you mean "deal"? (an index is a JSON number: send 0' in said
    said = fault_of(len(BETTING), BETTING)
    assert f"indexes count from 0: the last is {len(BETTING) - 1}" in said


def test_nothing_near_gives_no_guess() -> None:
    said = fault_of("zzzzzzzz", OCEANS)
    assert said == "'zzzzzzzz' is not one of the legal actions"
    assert fault_hints.nearest({"x": 1}, OCEANS) is None
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert fault_hints.suffix(deep, OCEANS) == ""  # a hint never makes a fault fail


def test_the_referee_stores_the_hint_in_the_fault() -> None:
    """A Big Two bot that answers a card as a string: the stored fault says the fix."""

    def card_as_string(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return ready()
        if message["type"] != "act":
            return None
        singles = [a for a in message["legal"] if isinstance(a, list) and len(a) == 1]
        return action(singles[0][0] if singles else "pass")

    table = Table(card_as_string, first_legal, first_legal, first_legal)
    bots = [BotInfo(name) for name in ("bad", "a", "b", "c")]
    outcome = play_match(MatchSpec("bigtwo", seed=3), bots, table.start, clock=table.clock)
    (fault,) = [f for f in outcome.faults if f.bot == 0]
    assert fault.kind == "illegal_action"
    assert "did you mean [" in fault.reason and "a play is a list of cards" in fault.reason


def test_an_action_against_the_rules_is_told_the_games_own_reason() -> None:
    """No slip of form: the stored fault says why the rules refuse it, in each game's words."""
    game = game_when("bigtwo", 4, lambda g, legal: _trick_kind(g) == "pair")
    seat = game.to_act()[0]
    single = [game.observation(seat)["hand"][0]]
    said = fault_hints.rules_reason(game, seat, single)
    assert said.startswith("; the rules: the trick is [") and "(pair): play 2 card(s)" in said

    betting = game_when("fifteen35", 3, lambda g, legal: "check" in legal)
    said = fault_hints.rules_reason(betting, betting.to_act()[0], "call")
    assert said == "; the rules: there is no bet to fold to, call or raise: check or bet"

    oceans = game_when("oceans11", 2, lambda g, legal: "deal" in legal)
    assert fault_hints.rules_reason(oceans, oceans.to_act()[0], "hit") == ""  # no more to say


def test_the_referee_adds_the_rules_reason_when_the_form_is_right() -> None:
    def single_on_a_pair(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return ready()
        if message["type"] != "act":
            return None
        seen = message["observation"]
        if seen["trick"] is not None and seen["trick"]["kind"] == "pair":
            return action([seen["hand"][0]])
        return action(0)

    def pairs_first(message: dict[str, Any]) -> Reply | None:
        if message["type"] == "hello":
            return ready()
        if message["type"] != "act":
            return None
        pairs = plays(message["legal"], 2)
        return action(pairs[0] if pairs else 0)

    table = Table(single_on_a_pair, pairs_first, pairs_first, pairs_first)
    bots = [BotInfo(name) for name in ("bad", "a", "b", "c")]
    outcome = play_match(MatchSpec("bigtwo", seed=3), bots, table.start, clock=table.clock)
    (fault,) = [f for f in outcome.faults if f.bot == 0]
    assert fault.kind == "illegal_action"
    assert "; the rules: the trick is [" in fault.reason and "(pair)" in fault.reason


def game_when(name: str, players: int, wanted: Callable[[Game, list[Action]], bool]) -> Game:
    """The first position of a seeded game that ``wanted`` accepts (as ``legal_when``)."""
    game: Game = new_game(name, 7, players=players)
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        if wanted(game, legal):
            return game
        pairs = plays(legal, 2)
        game.apply(seat, pairs[0] if pairs else legal[-1])
    raise AssertionError(f"no {name} position offers what the test needs")


def _trick_kind(game: Game) -> str | None:
    trick = game.observation(game.to_act()[0])["trick"]
    return None if trick is None else str(trick["kind"])
