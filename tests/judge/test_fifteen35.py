"""Fifteen Thirty-Five: the course of a hand, rule by rule, on rigged deals.

Hand 0 is dealt by seat 0, so with three players the order from the dealer's left is
seats 1, 2, 0. ``rigged`` replaces the shuffled cards with the ones a test names.
"""

import re
from pathlib import Path
from typing import Any

import pytest

from judge.cards import make_deck, parse_cards
from judge.engine import GameError, IllegalActionError
from judge.games import new_game
from judge.games.fifteen35 import FifteenThirtyFive

#: The conformance suite, whose tests the rules page may name too.
CONFORMANCE = Path(__file__).with_name("test_conformance.py")


def rigged(hands: list[str], stock: str = "", **options: Any) -> FifteenThirtyFive:
    """A one-hand game (unless ``hands`` is given) whose seats hold ``hands``, stock on top."""
    game = FifteenThirtyFive(0, players=len(hands), options={"hands": 1, **options})
    dealt = [parse_cards(text) for text in hands]
    top = parse_cards(stock)
    used = {card for cards in dealt for card in cards} | set(top)
    game.hidden = dealt
    game.stock = top + [card for card in make_deck() if card not in used]
    return game


def play(game: FifteenThirtyFive, *actions: str) -> None:
    """Apply each action for the seat whose turn it is."""
    for action in actions:
        (seat,) = game.to_act()
        game.apply(seat, action)


def expose_first(game: FifteenThirtyFive) -> None:
    while game.phase == "expose":
        play(game, game.legal_actions(game.to_act()[0])[0])


def declare(game: FifteenThirtyFive, **by_seat: str) -> None:
    for seat, declaration in by_seat.items():
        game.apply(int(seat[1:]), declaration)


THREE = ["2c 3c 4c", "5d 6d 7d", "8h 9h Th"]


# Making a game.


def test_it_seats_2_to_8_players_6_by_default() -> None:
    assert new_game("fifteen35", 1).players == 6
    assert FifteenThirtyFive(1, players=8).players == 8
    for bad in (1, 9):
        with pytest.raises(GameError, match=f"2 to 8 players, not {bad}"):
            FifteenThirtyFive(1, players=bad)


@pytest.mark.parametrize(
    ("option", "value"),
    [("ante", -1), ("bet", 0), ("bet", "2"), ("max_raises", True), ("hands", 1.5), ("ante", None)],
)
def test_it_refuses_bad_option_values_saying_which(option: str, value: object) -> None:
    with pytest.raises(GameError, match=f"option '{option}' must be a whole number"):
        FifteenThirtyFive(1, players=3, options={option: value})


def test_each_player_antes_and_gets_three_face_down_cards() -> None:
    game = FifteenThirtyFive(4, players=5, options={"ante": 3})
    assert game.pot == 15 and game.observation(0)["bets"] == [3] * 5
    assert all(len(game.observation(s)["hidden"]) == 3 for s in range(5))
    assert game.observation(0)["exposed"] == [[]] * 5
    assert len({c for s in range(5) for c in game.hidden[s]}) == 15


def test_a_game_is_one_hand_per_player_by_default_and_the_dealer_moves_one_seat() -> None:
    game = FifteenThirtyFive(8, players=4)
    dealers = []
    while not game.is_over():
        if game.observation(0)["hand"] == len(dealers):
            dealers.append(game.dealer)
        (seat, *_) = game.to_act()
        game.apply(seat, game.fallback_action(seat))
    assert dealers == [0, 1, 2, 3]
    assert len(game.revealed()["deals"]) == 4
    assert FifteenThirtyFive(8, players=3, options={"hands": 7}).hand_count == 7


# Exposing.


def test_exposures_go_in_turn_from_the_dealers_left_each_seeing_the_earlier_ones() -> None:
    game = rigged(THREE)
    assert game.to_act() == (1,)
    assert game.legal_actions(1) == ["expose 5d", "expose 6d", "expose 7d"]
    play(game, "expose 6d")
    assert game.to_act() == (2,)
    assert game.observation(2)["exposed"] == [[], ["6d"], []]
    assert game.observation(2)["hidden"] == ["8h", "9h", "Th"]
    play(game, "expose Th")
    assert game.to_act() == (0,)
    play(game, "expose 2c")
    assert game.observation(1)["hidden"] == ["5d", "7d"]
    assert game.phase == "bet"


def test_a_player_may_expose_only_one_of_their_own_face_down_cards() -> None:
    game = rigged(THREE)
    with pytest.raises(IllegalActionError, match=r"face-down cards \(5d 6d 7d\)"):
        game.apply(1, "expose 2c")
    with pytest.raises(IllegalActionError, match="seat 1's turn to expose a card"):
        game.apply(2, "expose 8h")


# Betting.


def test_the_first_round_is_opened_by_the_highest_exposed_card_aces_high() -> None:
    game = rigged(["Ac 2c 3c", "Kd 6d 7d", "Qh 9h Th"])
    play(game, "expose Kd", "expose Qh", "expose Ac")
    assert game.to_act() == (0,)


def test_equal_highest_exposed_cards_open_from_the_first_in_turn() -> None:
    game = rigged(["Kc 2c 3c", "5d 6d 7d", "Kh 9h Th"])
    play(game, "expose 5d", "expose Kh", "expose Kc")
    assert game.to_act() == (2,)  # seat 2 comes before seat 0 from the dealer's left


def test_with_no_bet_a_player_may_check_or_bet_and_facing_one_fold_call_or_raise() -> None:
    game = rigged(THREE)
    expose_first(game)
    opener = game.to_act()[0]
    assert game.legal_actions(opener) == ["check", "bet"]
    play(game, "bet")
    assert game.pot == 5 and game.observation(0)["round_bets"][opener] == 2
    nxt = game.to_act()[0]
    assert game.legal_actions(nxt) == ["fold", "call", "raise"]
    assert game.observation(nxt)["to_call"] == 2


def test_bets_and_raises_are_the_fixed_size_and_capped_at_max_raises() -> None:
    game = rigged(THREE, bet=5, max_raises=2)
    expose_first(game)
    play(game, "bet", "raise", "raise")
    assert game.pot == 3 + 5 + 10 + 15
    assert game.legal_actions(game.to_act()[0]) == ["fold", "call"]
    with pytest.raises(IllegalActionError, match="capped at 2 raises"):
        play(game, "raise")
    play(game, "call", "call")
    assert game.pot == 3 + 3 * 15 and game.phase == "offer"


def test_a_check_is_refused_facing_a_bet_and_a_call_with_none() -> None:
    game = rigged(THREE)
    expose_first(game)
    with pytest.raises(IllegalActionError, match="no bet to fold to, call or raise"):
        play(game, "call")
    play(game, "bet")
    with pytest.raises(IllegalActionError, match=r"face a bet \(2 to call\)"):
        play(game, "check")


def test_a_round_ends_when_everyone_has_matched_the_last_raise() -> None:
    game = rigged(THREE)  # exposing 5d, 8h, 2c: seat 2 opens
    expose_first(game)
    assert game.to_act() == (2,)
    play(game, "check", "bet", "call")
    assert game.to_act() == (2,)  # seat 2 checked, seat 0 bet: seat 2 has not matched it
    play(game, "raise", "call")
    assert game.to_act() == (1,)
    play(game, "call")
    assert game.phase == "offer" and game.observation(1)["bets"] == [5, 5, 5]


def test_when_all_but_one_fold_the_survivor_takes_the_pot_without_a_showdown() -> None:
    game = rigged(THREE)
    expose_first(game)
    play(game, "bet", "fold", "fold")
    assert game.is_over() and game.result().scores == (-1, -1, 2)
    last = game.observation(0)["last_hand"]
    assert last["showdown"] == {} and last["won"] == [0, 0, 5]


def test_later_rounds_are_opened_by_the_next_active_player_after_the_last_opener() -> None:
    game = rigged(["2c 3c 4c", "5d 6d 7d", "8h 9h Th", "Ac 2d 3d"])  # order 1, 2, 3, 0
    expose_first(game)
    assert game.to_act() == (3,)  # the ace opens
    play(game, "bet", "fold", "call", "call")  # seat 0 folds
    play(game, "take", "take", "take")  # offers: 1, 2, 3 (0 has folded)
    assert game.to_act() == (1,)  # after 3 comes 0, folded, so 1
    play(game, "check", "check", "check")
    play(game, "take", "take", "take")
    assert game.to_act() == (2,)


# Card offers and freezing.


def test_offers_go_from_the_dealers_left_and_a_taken_card_is_dealt_face_up() -> None:
    game = rigged(THREE, stock="Kc Qc")
    expose_first(game)
    play(game, "check", "check", "check")
    assert game.phase == "offer" and game.to_act() == (1,)
    assert game.legal_actions(1) == ["take", "refuse"]
    play(game, "take")
    assert game.observation(0)["exposed"][1] == ["5d", "Kc"]
    assert game.to_act() == (2,)
    play(game, "refuse", "take")
    assert game.observation(1)["exposed"][0] == ["2c", "Qc"]
    assert game.phase == "bet"


def test_two_refusals_in_a_row_freeze_a_player_who_still_bets() -> None:
    game = rigged(THREE)
    expose_first(game)
    play(game, "check", "check", "check")
    play(game, "refuse", "take", "take")  # seat 1 refuses once
    play(game, "check", "check", "check")
    play(game, "refuse", "take", "take")  # seat 1 refuses again: frozen
    assert game.observation(0)["frozen"] == [False, True, False]
    assert 1 in game.pending and game.phase == "bet"
    while game.phase == "bet":
        play(game, "check")
    assert game.to_act() == (2,)  # the frozen seat 1 is not offered a card


def test_taking_a_card_resets_the_refusal_count() -> None:
    game = rigged(THREE)
    expose_first(game)
    play(game, "check", "check", "check")
    play(game, "refuse", "take", "take")
    assert game.observation(0)["refusals"] == [0, 1, 0]
    play(game, "check", "check", "check")
    play(game, "take", "take", "take")
    play(game, "check", "check", "check")
    play(game, "refuse", "take", "take")
    assert game.observation(0)["refusals"] == [0, 1, 0]
    assert game.observation(0)["frozen"] == [False, False, False]


def test_a_round_where_nobody_takes_a_card_leads_to_the_final_round_then_showdown() -> None:
    game = rigged(THREE)
    expose_first(game)
    play(game, "check", "check", "check")
    play(game, "refuse", "refuse", "refuse")
    assert game.phase == "bet" and game.final_round
    play(game, "check", "check", "check")
    assert game.phase == "declare" and set(game.to_act()) == {0, 1, 2}


def test_an_empty_stock_ends_the_offers_and_the_rest_are_not_asked() -> None:
    game = rigged(THREE)
    game.stock = parse_cards("Kc Qc")
    expose_first(game)
    play(game, "check", "check", "check")
    play(game, "take", "take")  # seat 2 takes the last card; seat 0 is not offered one
    assert game.phase == "bet" and game.final_round and game.observation(0)["stock"] == 0


# The showdown.


def test_a_natural_claims_the_pot_with_no_declarations() -> None:
    game = rigged(["Ac Ad 5h", "5d 6d 7d", "8h 9h Th"], stock="8s")
    expose_first(game)
    play(game, "check", "check", "check")
    play(game, "refuse", "refuse", "take")  # seat 0 takes 8s: A-A-5-8
    play(game, "check", "check", "check")
    play(game, "refuse", "refuse", "refuse")
    play(game, "check", "check", "check")
    assert game.is_over() and game.result().scores == (2, -1, -1)
    assert game.observation(1)["last_hand"]["showdown"]["0"] == ["Ad", "5h", "Ac", "8s"]


def to_showdown(game: FifteenThirtyFive) -> None:
    expose_first(game)
    play(game, *["check"] * game.players, *["refuse"] * game.players)
    play(game, *["check"] * game.players)


def test_declarations_are_collected_from_all_at_once_and_shown_to_none_until_all_are_in() -> None:
    game = rigged(["7c 8c 2d", "Tc Td 9s", "Th Ts 9h"])
    to_showdown(game)
    before = [game.observation(s) for s in range(3)]
    assert set(game.to_act()) == {0, 1, 2}
    game.apply(1, "35")
    assert set(game.to_act()) == {0, 2}
    game.apply(0, "15")
    assert [game.observation(s) for s in range(3)] == before
    with pytest.raises(IllegalActionError, match="already declared"):
        game.apply(1, "15")
    game.apply(2, "35")
    last = game.observation(0)["last_hand"]
    assert last["declarations"] == {"0": "15", "1": "35", "2": "35"}
    assert last["showdown"]["2"] == ["Ts", "9h", "Th"]
    # 0 has 17 (7+8+2) for 15; 1 and 2 both have 29 for 35, same cards: they share 35's half.
    assert last["won"] == [1, 1, 1]


def test_the_15_half_is_rounded_down_and_the_odd_chip_goes_with_35() -> None:
    game = rigged(["7c 8c 2d", "Tc Td 9s", "Th Ts 8h"])
    to_showdown(game)
    declare(game, s0="15", s1="35", s2="35")
    assert game.observation(0)["last_hand"]["won"] == [1, 2, 0]


def test_a_folded_players_cards_are_not_shown_but_the_end_reveals_every_hand() -> None:
    game = rigged(["7c 8c 2d", "Tc Td 9s", "Th Ts 8h"])
    expose_first(game)
    play(game, "bet", "call", "fold")  # Tc and Th: seat 1 opens, first from the left
    play(game, "refuse", "refuse", "check", "check")  # seat 0 has folded
    declare(game, s1="35", s2="15")
    assert set(game.observation(0)["last_hand"]["showdown"]) == {"1", "2"}
    (deal,) = game.revealed()["deals"]
    assert deal["cards"][0] == ["8c", "2d", "7c"] and deal["folded"] == [True, False, False]
    assert deal["declarations"] == {"1": "35", "2": "15"}


def test_an_unknown_declaration_is_refused_saying_what_to_declare() -> None:
    game = rigged(THREE)
    to_showdown(game)
    with pytest.raises(IllegalActionError, match="declare '15', '35' or 'both', not '21'"):
        game.apply(0, "21")


def test_a_folded_unknown_or_malformed_move_is_refused_saying_why() -> None:
    game = rigged(THREE)
    with pytest.raises(IllegalActionError, match="there is no seat 9"):
        game.apply(9, "expose 2c")
    with pytest.raises(IllegalActionError, match="expose one of your face-down cards"):
        game.apply(1, ["5d"])
    expose_first(game)
    play(game, "bet", "fold")
    with pytest.raises(IllegalActionError, match="seat 0 has folded this hand"):
        game.apply(0, "call")


# Faulted seats and the end of the game.


def test_a_faulted_seat_checks_if_free_else_folds_refuses_cards_declares_15() -> None:
    game = rigged(THREE)
    assert game.fallback_action(1) == "expose 5d"
    expose_first(game)
    assert game.fallback_action(2) == "check"
    play(game, "bet")
    assert game.fallback_action(0) == "fold"
    play(game, "call", "call")
    assert game.fallback_action(1) == "refuse"
    play(game, "refuse", "refuse", "refuse", "check", "check", "check")
    assert game.fallback_action(0) == "15"


def test_the_result_is_net_chips_only_once_the_game_is_over() -> None:
    game = rigged(THREE)
    with pytest.raises(GameError, match="not over"):
        game.result()
    expose_first(game)
    play(game, "bet", "fold", "fold")
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.apply(0, "check")
    assert sum(game.result().scores) == 0


def test_the_rules_page_names_only_tests_that_exist_and_every_rule_test() -> None:
    root = Path(__file__).resolve().parents[2]
    named = set(re.findall(r"`(test_\w+)`", (root / "docs/rules/tests/fifteen35.md").read_text()))
    defined = {
        path.stem: set(re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE))
        for path in [*Path(__file__).parent.glob("test_fifteen35*.py"), CONFORMANCE]
    }
    assert named <= set().union(*defined.values()), named - set().union(*defined.values())
    rules = defined["test_fifteen35"] | defined["test_fifteen35_scoring"]
    rules |= defined["test_fifteen35_properties"]
    machinery = {
        "test_the_rules_page_names_only_tests_that_exist_and_every_rule_test",
        "test_the_split_refuses_missing_or_unknown_declarations",
    }
    assert rules - named == machinery
