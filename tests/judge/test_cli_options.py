"""``python -m judge play --option KEY=VALUE``: a bot author sets any game option from the
command line, typed and bounded by the same schema the server checks, with errors that
name the option and what it takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli import main
from judge.cli.game_options import parse_options
from judge.engine import Game, GameError
from judge.games import GAMES, game_class
from judge.options import OptionKind


def play(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["play", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_options_given_are_the_ones_the_engine_plays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "match.json"
    status, _out, err = play(
        capsys, "bigtwo", "--seed", "3", "--option", "straights=poker", "--option", "deals=3",
        "--replay", str(path), "house:random", "house:greedy",
    )  # fmt: skip
    assert status == 0, err
    options = json.loads(path.read_text())["header"]["options"]
    assert options["straights"] == "poker" and options["deals"] == 3
    assert options["double_at"] == game_class("bigtwo").option_defaults["double_at"]
    assert main(["replay", str(path), "--verify"]) == 0


def test_every_option_of_every_game_takes_its_bounds_as_text() -> None:
    for game in GAMES.values():
        for option in game.option_schema:
            shown = option.to_json()
            if option.kind is OptionKind.INT:
                for edge in (shown["minimum"], shown["maximum"]):
                    assert within_bounds(game, f"{option.name}={edge}", {option.name: edge})
                with pytest.raises(GameError, match=f"'{option.name}' must be a whole number"):
                    parse_options(game, [f"{option.name}={shown['maximum'] + 1}"])
            elif option.kind is OptionKind.CHOICE:
                for choice in option.choices:
                    assert parse_options(game, [f"{option.name}={choice}"])[option.name] == choice


def within_bounds(game: type[Game], pair: str, expected: dict[str, object]) -> bool:
    """Whether ``pair`` is taken as ``expected``, or refused only by a rule between options
    (Big Two's double_at may not exceed triple_at), never by its own bounds."""
    try:
        return parse_options(game, [pair]) == expected
    except GameError as error:
        return "must be a whole number" not in str(error) and "must not exceed" in str(error)


@pytest.mark.parametrize(
    ("pairs", "says"),
    [
        (["deals=21"], "--option: bigtwo option 'deals' must be a whole number from 1 to 20"),
        (["deals=many"], "--option deals: give a whole number from 1 to 20, not 'many'"),
        (["straights=wrap"], "'straights' must be one of ['big-two', 'poker']"),
        (["deal=3"], "bigtwo has no option 'deal'; its options: straights=big-two|poker"),
        (["deals"], "--option takes KEY=VALUE, such as deals=3, not 'deals'"),
        (["=3"], "--option takes KEY=VALUE"),
        (["deals=2", "deals=3"], "--option deals is given twice"),
        (["variant=poker"], "set it with --variant NAME instead"),
        (["deals=" + "9" * 300], "--option is at most 200 characters, not 306"),
    ],
)
def test_a_bad_option_is_refused_naming_it_and_its_bounds(pairs: list[str], says: str) -> None:
    with pytest.raises(GameError) as caught:
        parse_options(game_class("bigtwo"), pairs)
    assert says in str(caught.value)


def test_the_command_refuses_a_bad_option_before_starting_a_bot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = play(capsys, "fifteen35", "--option", "ante=-1", "house:random", "x.py")
    assert status == 2 and out == ""
    assert "error: --option: fifteen35 option 'ante' must be a whole number from 0 to 1000" in err


def test_help_lists_every_games_variants_and_options_with_their_bounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    shown = capsys.readouterr().out
    for name, game in GAMES.items():
        line = next(line for line in shown.splitlines() if line.strip().startswith(f"{name}:"))
        assert all(variant in line for variant in game.variants)
        for option in game.option_schema:
            bounds = option.to_json()
            expected = (
                f"{option.name}={bounds['minimum']}..{bounds['maximum']} [{option.default}]"
                if option.kind is OptionKind.INT
                else f"{option.name}="
            )
            assert expected in line
