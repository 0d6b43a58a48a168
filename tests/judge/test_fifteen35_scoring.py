"""Fifteen Thirty-Five scoring: card values, best totals, naturals and the pot split."""

import itertools
import random

import pytest

from judge.cards import RANKS, make_deck, parse_cards
from judge.games.fifteen35.scoring import (
    TARGET_15,
    TARGET_35,
    best_total,
    brute_force_totals,
    card_values,
    divide,
    is_natural,
    reachable_totals,
    split_pot,
    standing,
)


def hand(text: str) -> list:
    return parse_cards(text)


def test_aces_count_1_or_11_pictures_half_or_10_others_face_value() -> None:
    values = {c: card_values(parse_cards(c + "s")[0]) for c in RANKS}
    assert values["A"] == (2, 22)
    assert values["K"] == values["Q"] == values["J"] == (1, 20)
    assert values["T"] == (20,)
    assert [values[r][0] for r in "23456789"] == [4, 6, 8, 10, 12, 14, 16, 18]


def test_each_card_is_valued_separately_so_two_aces_reach_2_12_and_22() -> None:
    assert reachable_totals(hand("Ac Ad")) == {4, 24, 44}
    assert reachable_totals(hand("Kc As")) == {3, 22, 23, 42}


def test_best_totals_agree_with_a_brute_force_over_every_valuation() -> None:
    rng = random.Random(35)
    deck = make_deck()
    for _ in range(4000):
        cards = rng.sample(deck, rng.randint(1, 8))
        totals = brute_force_totals(cards)
        assert reachable_totals(cards) == totals
        for target in (TARGET_15, TARGET_35):
            best = min(totals, key=lambda t: (abs(t - target), t > target))
            assert best_total(reachable_totals(cards), target) == best


def test_a_a_5_8_is_a_natural_15_35() -> None:
    assert is_natural(hand("Ac Ad 5h 8s"))
    assert not is_natural(hand("Ac 5h 9s"))  # 15 but never 35


def test_a_natural_always_holds_at_least_two_aces() -> None:
    rng = random.Random(2)
    deck = make_deck()
    for _ in range(3000):
        cards = rng.sample(deck, rng.randint(2, 8))
        if is_natural(cards):
            assert sum(c.rank == 12 for c in cards) >= 2


def test_nearer_the_target_wins_so_36_beats_33_5_for_35() -> None:
    thirty_six, thirty_three_half = hand("9c 9d 9h 9s"), hand("Tc Td Th 3c Kc")
    assert best_total(reachable_totals(thirty_three_half), TARGET_35) == 67
    assert standing(thirty_six, TARGET_35) < standing(thirty_three_half, TARGET_35)


def test_under_beats_over_so_14_beats_16_for_15() -> None:
    assert standing(hand("7c 7d"), TARGET_15) < standing(hand("8h 8s"), TARGET_15)


def test_an_exact_total_beats_one_under() -> None:
    assert standing(hand("7c 8d"), TARGET_15) < standing(hand("7c 7d"), TARGET_15)


def test_fewer_cards_win_so_14_5_in_three_beats_14_5_in_four() -> None:
    three, four = hand("7c 7d Kc"), hand("6c 4d 4h Kd")
    assert best_total(reachable_totals(three), TARGET_15) == 29
    assert best_total(reachable_totals(four), TARGET_15) == 29
    assert standing(three, TARGET_15) < standing(four, TARGET_15)


def test_no_four_cards_reach_34_5_so_the_seeds_example_cannot_occur() -> None:
    reached = set()
    for ranks in itertools.combinations_with_replacement(RANKS, 4):
        reached |= reachable_totals(parse_cards([r + "s" for r in ranks]))
    assert 69 not in reached and 67 in reached  # 34.5 never, 33.5 yes


def test_the_best_total_prefers_under_when_two_reachable_totals_are_equally_near() -> None:
    assert best_total({28, 32}, TARGET_15) == 28


# The pot split. Seats are listed from the dealer's left.

LOW_15 = "7c 8d"  # exactly 15, never 35
NEAR_15 = "7h 7s"  # 14
EXACT_35 = "Tc Td Th 5s"  # exactly 35, never 15


def test_a_natural_takes_the_whole_pot_even_against_an_exact_15() -> None:
    hands = {0: hand("Ac Ad 5h 8s"), 1: hand(LOW_15)}
    assert split_pot(9, [1, 0], hands) == {0: 9}


def test_several_naturals_split_the_pot_odd_chip_to_the_first_from_dealers_left() -> None:
    hands = {0: hand("Ac Ad 5h 8s"), 1: hand("Ah As 6c 7d"), 2: hand(LOW_15)}
    assert split_pot(9, [1, 2, 0], hands) == {1: 5, 0: 4}
    assert split_pot(9, [0, 1, 2], hands) == {0: 5, 1: 4}


def test_the_pot_is_halved_15_half_rounded_down_and_35_half_takes_the_odd_chip() -> None:
    hands = {0: hand(LOW_15), 1: hand(EXACT_35), 2: hand(NEAR_15)}
    declared = {0: "15", 1: "35", 2: "15"}
    assert split_pot(11, [0, 1, 2], hands, declared) == {0: 5, 1: 6}


def test_when_everyone_declares_the_same_side_its_winner_takes_the_whole_pot() -> None:
    hands = {0: hand(LOW_15), 1: hand(NEAR_15), 2: hand(EXACT_35)}
    declared = {0: "15", 1: "15", 2: "15"}
    assert split_pot(11, [0, 1, 2], hands, declared) == {0: 11}


def test_equal_contenders_split_a_half_and_the_first_from_dealers_left_gets_the_rest() -> None:
    hands = {0: hand("7c 8d"), 1: hand("7h 8s"), 2: hand(EXACT_35)}
    declared = {0: "15", 1: "15", 2: "35"}
    assert split_pot(11, [1, 2, 0], hands, declared) == {1: 3, 0: 2, 2: 6}
    assert split_pot(11, [0, 1, 2], hands, declared) == {0: 3, 1: 2, 2: 6}


def test_fewer_cards_break_a_tie_between_declarers() -> None:
    hands = {0: hand("6c 4d 4h Kd"), 1: hand("7c 7d Kc"), 2: hand(EXACT_35)}
    declared = {0: "15", 1: "15", 2: "35"}
    assert split_pot(10, [0, 1, 2], hands, declared) == {1: 5, 2: 5}


def test_a_both_declarer_who_strictly_wins_both_sides_takes_the_whole_pot() -> None:
    # Ac Ad 5h 9s: 16 (1+1+5+9) and 36 (11+11+5+9) -> not a natural, near both.
    hands = {0: hand("Ac Ad 5h 9s"), 1: hand("7h 7s 3c"), 2: hand("Tc Td Th 3s 3d")}
    declared = {0: "both", 1: "15", 2: "35"}
    assert split_pot(9, [0, 1, 2], hands, declared) == {0: 9}


def test_a_side_nobody_else_contends_counts_as_beaten_for_a_both_declarer() -> None:
    hands = {0: hand("Ac Ad 5h 9s"), 1: hand("Tc Td Th 3s 2d")}  # 1 has 35 exactly
    declared = {0: "both", 1: "15"}  # 1 is far from 15 (25 or 34.5 ...)
    assert split_pot(9, [0, 1], hands, declared) == {0: 9}


def test_a_both_declarer_who_ties_a_side_is_out_of_both_halves() -> None:
    # Seat 0 has 16 and 36 in four cards: it ties seat 1 (16 in four) for 15 and beats
    # seat 2 (36 in five) for 35, yet the tie puts it out of both halves.
    hands = {0: hand("Ac Ad 5h 9s"), 1: hand("9c 3d 2h 2s"), 2: hand("Tc Td Th 3s 3d")}
    declared = {0: "both", 1: "15", 2: "35"}
    assert split_pot(10, [0, 1, 2], hands, declared) == {1: 5, 2: 5}


def test_a_half_nobody_can_win_goes_to_the_other_halfs_winner() -> None:
    hands = {0: hand("Ac Ad 5h 9s"), 1: hand("9c 3d 2h 2s"), 2: hand("7h 7s")}
    declared = {0: "both", 1: "15", 2: "15"}  # the both-declarer ties seat 1 and is out
    assert split_pot(10, [0, 1, 2], hands, declared) == {2: 10}


def test_when_every_declarer_said_both_and_none_swept_each_half_goes_to_the_best_hand() -> None:
    # 0 is best for 15 (exactly 15), 1 best for 35 (exactly 35); each beats the other once.
    hands = {0: hand("7c 8d"), 1: hand("Tc Td Th 5s")}
    declared = {0: "both", 1: "both"}
    assert split_pot(11, [0, 1], hands, declared) == {0: 5, 1: 6}


def test_one_group_taking_the_whole_pot_splits_it_once() -> None:
    # Both said both and tie on both sides: the pot of 10 is split once (5/5), not per
    # half (3+3 / 2+2 would give 6/4).
    hands = {0: hand("7c 8d"), 1: hand("7h 8s")}
    declared = {0: "both", 1: "both"}
    assert split_pot(10, [0, 1], hands, declared) == {0: 5, 1: 5}


def test_the_split_always_hands_out_the_whole_pot() -> None:
    rng = random.Random(15)
    deck = make_deck()
    for _ in range(2000):
        players = rng.randint(2, 8)
        cards = rng.sample(deck, 3 * players)
        hands = {s: cards[3 * s : 3 * s + 3] for s in range(players)}
        order = rng.sample(range(players), players)
        declared = {s: rng.choice(["15", "35", "both"]) for s in range(players)}
        pot = rng.randint(players, 60)
        shares = split_pot(pot, order, hands, declared)
        assert sum(shares.values()) == pot and all(v > 0 for v in shares.values())


def test_the_split_refuses_missing_or_unknown_declarations() -> None:
    hands = {0: hand(LOW_15), 1: hand(NEAR_15)}
    with pytest.raises(ValueError, match="must declare"):
        split_pot(4, [0, 1], hands, {0: "15"})
    with pytest.raises(ValueError, match="not '21'"):
        split_pot(4, [0, 1], hands, {0: "15", 1: "21"})
    with pytest.raises(ValueError, match="no winners"):
        divide(4, [], [0, 1])
