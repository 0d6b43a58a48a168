"""Declared option bounds: every game's options are checked by one validator."""

from __future__ import annotations

from typing import Any

import pytest

from judge.engine import GameError
from judge.games import GAMES, game_class
from judge.options import OptionKind, bool_option, checked_options, choice_option, int_option


def test_each_kind_of_option_accepts_its_values_and_refuses_others_by_name() -> None:
    schema = (
        int_option("n", 3, 1, 5),
        bool_option("fast", False),
        choice_option("suit", "c", ("c", "d")),
    )
    assert checked_options("g", schema, {}) == {"n": 3, "fast": False, "suit": "c"}
    assert checked_options("g", schema, {"n": 5, "fast": True, "suit": "d"}) == {
        "n": 5,
        "fast": True,
        "suit": "d",
    }
    for bad, named in [
        ({"n": 6}, "'n' must be a whole number from 1 to 5, not 6"),
        ({"n": True}, "'n' must be a whole number"),
        ({"n": 2.0}, "'n' must be a whole number"),
        ({"fast": 1}, "'fast' must be true or false"),
        ({"suit": "h"}, r"'suit' must be one of \['c', 'd'\]"),
        ({"colour": 1}, "g has no option 'colour'"),
    ]:
        with pytest.raises(ValueError, match=named):
            checked_options("g", schema, bad)


def test_a_huge_value_is_refused_with_a_short_message() -> None:
    with pytest.raises(GameError) as caught:
        game_class("bigtwo").checked_settings({"deals": 10**400})
    assert "from 1 to 20" in str(caught.value) and len(str(caught.value)) < 200


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_option_of_every_game_has_bounds_and_a_valid_default(name: str) -> None:
    cls = game_class(name)
    for option in cls.option_schema:
        if option.kind is OptionKind.INT:
            assert option.minimum is not None and option.maximum is not None
            assert option.minimum <= option.default <= option.maximum
        shown = option.to_json()
        assert shown["name"] == option.name and shown["default"] == option.default
    settings = cls.checked_settings()
    assert settings.players == cls.default_players and settings.variant == cls.variants[0]
    assert settings.options == dict(cls.option_defaults)


@pytest.mark.parametrize(
    ("name", "request_", "named"),
    [
        ("bigtwo", {"options": {"deals": 21}}, "from 1 to 20, not 21"),
        ("fifteen35", {"options": {"hands": 65}}, "from 0 to 64, not 65"),
        ("fifteen35", {"players": 9}, "2 to 8 players, not 9"),
        ("oceans11", {"variant": "huge"}, "no variant 'huge'"),
        ("oceans11", {"options": {"hands": 3}}, "no option 'hands'"),
        ("bigtwo", {"options": []}, "options must be an object"),
    ],
)
def test_checked_settings_refuses_what_is_out_of_bounds(
    name: str, request_: dict[str, Any], named: str
) -> None:
    with pytest.raises(GameError, match=named):
        game_class(name).checked_settings(**request_)
