"""Oceans 11: each rule of the seed and of rules.md (docs/rules/tests/oceans11.md names them)."""

from __future__ import annotations

import json
import re
from importlib import import_module
from pathlib import Path

import pytest

from judge.cards import Card, format_cards, make_deck, parse_cards
from judge.engine import GameError, IllegalActionError
from judge.games.oceans11 import CONCEDE, DEAL, VARIANTS, Oceans11


class Rigged(Oceans11):
    """Oceans 11 dealt from decks written in the test (top card first)."""

    fixed: tuple[list[Card], list[Card]] = ([], [])

    def _deal_decks(self) -> list[list[Card]]:
        return [list(self.fixed[0]), list(self.fixed[1])]


def rigged(deck0: str, deck1: str, variant: str = "standard") -> Oceans11:
    cls = type("R", (Rigged,), {"fixed": (parse_cards(deck0), parse_cards(deck1))})
    return cls(0, variant=variant)


def rows(game: Oceans11) -> list[list[str]]:
    return [format_cards(row.cards) for row in game.rows]


def hows(game: Oceans11) -> list[str]:
    return [outcome.how for outcome in game.outcomes]


def test_each_player_turns_one_card_to_start_a_hand() -> None:
    game = rigged("2c 3c", "Kh 4h")
    assert rows(game) == [["2c"], ["Kh"]]
    assert game.cards_left(0) == game.cards_left(1) == 1


def test_only_the_weaker_row_decides_between_deal_and_concede() -> None:
    game = rigged("2c 3c", "Kh 4h")
    assert game.to_act() == (0,)
    assert game.legal_actions(0) == [DEAL, CONCEDE]
    assert game.legal_actions(1) == []


def test_dealing_adds_the_next_card_and_the_rows_are_compared_again() -> None:
    game = rigged("2c 2d 5c", "Kh 9c 4h")
    game.apply(0, DEAL)
    assert rows(game) == [["2c", "2d"], ["Kh"]]
    assert game.to_act() == (1,)  # a pair beats a lone king: now seat 1 is weaker


def test_conceding_gives_the_hand_to_the_other_and_discards_both_rows() -> None:
    game = rigged("2c 3c 4c", "Kh 4h 5h")
    game.apply(0, CONCEDE)
    assert game.wins == [0, 1]
    assert format_cards(game.used[0]) == ["2c"] and format_cards(game.used[1]) == ["Kh"]
    assert rows(game) == [["3c"], ["4h"]]  # the next hand starts at once


def test_equal_rows_make_both_players_deal_without_a_decision() -> None:
    game = rigged("Kc 3d 9c", "Kd 4h 9d")
    assert rows(game) == [["Kc", "3d"], ["Kd", "4h"]]
    assert game.to_act() == (0,)
    assert [step.seat for step in game.history] == []


def test_rows_compare_as_their_best_five_cards_with_padding() -> None:
    game = rigged("Ac 7h", "Kc Kd 8s")
    assert game.to_act() == (1,)  # a lone ace beats a lone king
    game.apply(1, DEAL)
    assert game.to_act() == (0,)  # any pair beats any high card


def test_deuces_are_wild_only_in_deuces_wild() -> None:
    assert rows(rigged("2c 5c 9c", "Ah 6h 9h", "deuces-wild"))[0] == ["2c", "5c"]  # a tie
    assert rows(rigged("2c 5c 9c", "Ah 6h 9h", "standard"))[0] == ["2c"]


def test_jokers_are_wild() -> None:
    game = rigged("JK 5c 9c", "Ah 6h 9h")
    assert rows(game) == [["JK", "5c"], ["Ah", "6h"]]  # a lone joker ties a lone ace


def test_a_player_who_must_deal_with_no_cards_concedes() -> None:
    game = rigged("2c", "Kh 3c")
    assert game.outcomes[0].how == "no cards" and game.outcomes[0].winner == 1


def test_a_tie_with_one_empty_deck_is_conceded_by_the_empty_player() -> None:
    game = rigged("Kc", "Kd 5h")
    assert game.outcomes[0].how == "no cards" and game.outcomes[0].winner == 1
    assert format_cards(game.used[1])[0] == "Kd"


def test_once_a_deck_is_empty_the_other_wins_a_hand_per_card_turned() -> None:
    game = rigged("2c", "Ac Kc Qc Jc")
    assert hows(game) == ["no cards", "run", "run", "run"]
    assert game.is_over() and game.wins == [0, 4]
    assert game.result().places == (2, 1)


def test_the_run_stops_at_the_target() -> None:
    game = rigged("2c", "Ac Kc Qc Jc Tc 9c 8c 7c")
    assert game.is_over() and game.wins == [0, 6]
    assert game.cards_left(1) == 2


def test_with_both_decks_empty_more_wins_wins_the_game() -> None:
    game = rigged("Ac Ad", "Kc Kd")
    game.apply(1, CONCEDE)  # then Kd, the last card, cannot better Ad: no cards, conceded
    assert game.is_over() and game.wins == [2, 0] and hows(game) == ["conceded", "no cards"]
    assert game.result().places == (1, 2)


def test_with_both_decks_empty_equal_wins_is_a_draw() -> None:
    game = rigged("Ac 2c", "Kc 3c")
    game.apply(1, CONCEDE)
    assert game.is_over() and game.wins == [1, 1]
    assert game.result().places == (1, 1) and game.result().scores == (1, 1)


def test_a_tie_with_both_decks_empty_is_a_void_hand() -> None:
    game = rigged("Kc", "Kd")
    assert game.is_over() and hows(game) == ["void"] and game.wins == [0, 0]
    assert game.outcomes[0].winner is None
    assert game.result().places == (1, 1)


def test_no_concession_while_the_opponent_needs_one_more_win() -> None:
    game = rigged("2c 2d 2h 2s 3c 3d 4c", "Ac Ad Ah As Kc Kd Kh")
    for _ in range(5):
        game.apply(0, CONCEDE)
    assert game.wins == [0, 5] and game.to_act() == (0,)
    assert game.legal_actions(0) == [DEAL]
    with pytest.raises(IllegalActionError, match="may not concede: the opponent needs one more"):
        game.apply(0, CONCEDE)
    assert game.fallback_action(0) == DEAL


def test_the_fallback_is_concede_when_conceding_is_allowed() -> None:
    game = rigged("2c 3c", "Kh 4h")
    assert game.fallback_action(0) == CONCEDE


@pytest.mark.parametrize(("variant", "target"), [("standard", 6), ("five-suits", 7), ("mini", 3)])
def test_the_first_to_win_the_target_number_of_hands_wins(variant: str, target: int) -> None:
    game = Oceans11(seed=3, variant=variant)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.fallback_action(seat))
    assert max(game.wins) == target and sum(game.wins) < 2 * target
    winner = game.wins.index(target)
    assert game.result().places[winner] == 1 and game.result().places[1 - winner] == 2


@pytest.mark.parametrize(
    ("variant", "size", "jokers", "suits"),
    [
        ("standard", 54, 2, 4),
        ("no-wilds", 52, 0, 4),
        ("deuces-wild", 54, 2, 4),
        ("five-suits", 65, 0, 5),
        ("mini", 26, 0, 4),
        ("mini-joker", 27, 1, 4),
    ],
)
def test_each_variant_deals_its_own_decks(variant: str, size: int, jokers: int, suits: int) -> None:
    game = Oceans11(seed=11, variant=variant)
    for deck in game.decks:
        assert len(deck) == size
        assert sum(c.is_joker for c in deck) == jokers
        assert {c.suit for c in deck if not c.is_joker} == set(range(suits))
    naturals = [c for deck in game.decks for c in deck if not c.is_joker]
    if VARIANTS[variant].split:  # one 52-card pack split between the players
        assert sorted(naturals, key=str) == sorted(make_deck(), key=str)
    else:
        assert all(sorted(d, key=str) == sorted(game.decks[0], key=str) for d in game.decks)


def test_each_deck_is_shuffled_from_the_seed_and_recorded() -> None:
    one, two, other = Oceans11(seed=7), Oceans11(seed=7), Oceans11(seed=8)
    assert one.decks == two.decks and one.decks != other.decks
    assert one.decks[0] != one.decks[1]
    assert one.deck_orders == [format_cards(deck) for deck in one.decks]
    assert one.revealed() == {"decks": one.deck_orders}


def test_the_observation_shows_everything_but_the_deck_orders() -> None:
    game = rigged("2c 3c 4d", "Kh 4h 6s")
    game.apply(0, CONCEDE)
    seen = game.observation(1)
    json.dumps(seen)
    assert seen["seat"] == 1 and seen["wins"] == [0, 1] and seen["target"] == 6
    assert seen["rows"] == [["3c"], ["4h"]] and seen["deck_sizes"] == [1, 1]
    assert seen["used"] == [["2c"], ["Kh"]] and seen["to_act"] == 0
    assert seen["row_hands"][1] == {"name": "high card, four", "key": [0, 3, 0, 0, 0, 0]}
    assert "4d" not in json.dumps(seen) and "6s" not in json.dumps(seen)


def test_illegal_actions_are_refused_saying_why() -> None:
    game = rigged("2c 3c", "Kh 4h")
    with pytest.raises(IllegalActionError, match="not seat 1's turn"):
        game.apply(1, DEAL)
    with pytest.raises(IllegalActionError, match="not one of the legal actions"):
        game.apply(0, "fold")
    with pytest.raises(GameError, match="no variant 'huge'"):
        Oceans11(seed=1, variant="huge")


def test_the_rules_page_names_every_rule_test_and_only_real_tests() -> None:
    root = Path(__file__).resolve().parents[2]
    named = set(re.findall(r"`(test_\w+)`", (root / "docs/rules/tests/oceans11.md").read_text()))
    modules = ["oceans11_rules", "oceans11_properties", "hands", "hands_oracle", "cli_hand"]
    modules.append("conformance")
    existing = {
        name
        for module in modules
        for name in dir(import_module(f"tests.judge.test_{module}"))
        if name.startswith("test_")
    }
    assert named <= existing, sorted(named - existing)
    rule_tests = {name for name in globals() if name.startswith("test_")}
    rule_tests.discard("test_the_rules_page_names_every_rule_test_and_only_real_tests")
    assert rule_tests <= named, sorted(rule_tests - named)
