"""``--option KEY=VALUE``: a game's options from the command line, typed by its schema.

The text of each pair is turned into the value its option declares (a whole number, yes
or no, one of a few words), then the whole request goes through ``Game.checked_settings``,
the validator the service, the API and the web forms call: the CLI accepts exactly what
the server accepts, and refuses the rest with the same bounds in the message.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from judge.engine import Game, GameError
from judge.games import GAMES
from judge.options import Option, OptionKind

#: The longest ``KEY=VALUE`` accepted: an option's name and value are a few words at most.
MAX_PAIR_LENGTH = 200

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
#: Settings that have their own flag: an --option naming one points there.
_OWN_FLAGS = {"variant": "--variant NAME", "players": "--players N", "games": "--games N"}


def add_setting_arguments(parser: argparse.ArgumentParser) -> None:
    """``--variant`` and ``--option KEY=VALUE``, as every command that plays takes them
    (``parse_options`` reads the options against the chosen game's schema)."""
    parser.add_argument("--variant", help="the game's variant (default: its standard one)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a game option (repeatable; the options are listed below)",
    )


def parse_options(game: type[Game], pairs: Sequence[str]) -> dict[str, Any]:
    """The options that ``pairs`` (``KEY=VALUE`` texts) set, each of its declared type;
    GameError naming the pair and what the option takes when one does not fit."""
    known = {option.name: option for option in game.option_schema}
    chosen: dict[str, Any] = {}
    for pair in pairs:
        name, value = _split(pair)
        if name in _OWN_FLAGS:
            raise GameError(f"--option {name}=...: set it with {_OWN_FLAGS[name]} instead")
        if name not in known:
            raise GameError(
                f"--option {pair[:MAX_PAIR_LENGTH]}: {game.name} has no option {name!r}; "
                f"its options: {describe(game)}"
            )
        if name in chosen:
            raise GameError(f"--option {name} is given twice; give each option once")
        chosen[name] = _typed(known[name], value)
    try:
        game.checked_settings(chosen)  # the bounds, and the rules between options
    except GameError as error:
        raise GameError(f"--option: {error}") from None
    return chosen


def describe(game: type[Game]) -> str:
    """Every option of ``game`` with what it takes and its default, for messages and help."""
    if not game.option_schema:
        return "none"
    return ", ".join(f"{option.name}={_takes(option)}" for option in game.option_schema)


def options_help() -> str:
    """Per game its variants and options (the ``play`` command's epilog)."""
    lines = ["each game's --variant and --option KEY=VALUE (default first, or in brackets):"]
    for name in sorted(GAMES):
        game = GAMES[name]
        lines.append(f"  {name}: variants {', '.join(game.variants)}; options {describe(game)}")
    return "\n".join(lines)


def _split(pair: str) -> tuple[str, str]:
    if len(pair) > MAX_PAIR_LENGTH:
        raise GameError(f"--option is at most {MAX_PAIR_LENGTH} characters, not {len(pair)}")
    name, equals, value = pair.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise GameError(f"--option takes KEY=VALUE, such as deals=3, not {pair!r}")
    return name.strip(), value.strip()


def _typed(option: Option, text: str) -> Any:
    """``text`` as ``option``'s kind of value (its bounds are checked afterwards)."""
    if option.kind is OptionKind.INT:
        try:
            return int(text)
        except ValueError:
            raise GameError(f"--option {option.name}: {_wanted(option)}, not {text!r}") from None
    if option.kind is OptionKind.BOOL:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise GameError(f"--option {option.name}: {_wanted(option)}, not {text!r}")
    return text


def _wanted(option: Option) -> str:
    """What ``option`` takes, as a sentence fragment."""
    shown = option.to_json()
    if option.kind is OptionKind.INT:
        return f"give a whole number from {shown['minimum']} to {shown['maximum']}"
    if option.kind is OptionKind.BOOL:
        return "give true or false"
    return f"give one of {', '.join(option.choices)}"


def _takes(option: Option) -> str:
    shown = option.to_json()
    if option.kind is OptionKind.INT:
        return f"{shown['minimum']}..{shown['maximum']} [{option.default}]"
    if option.kind is OptionKind.BOOL:
        return f"true|false [{str(option.default).lower()}]"
    return f"{'|'.join(option.choices)} [{option.default}]"
