"""Poker hand rules of rules.md (Oceans 11): categories, wilds, padding, names, errors."""

from __future__ import annotations

import pytest

from judge.cards import parse_cards
from judge.hands import (
    DEUCES_WILD,
    JOKERS_WILD,
    NO_WILDS,
    DuplicateCardError,
    HandRow,
    WildnessError,
    evaluate,
    key_of,
    score,
)


def key(text: str, wilds: frozenset[int] = JOKERS_WILD) -> tuple[int, ...]:
    return key_of(score(parse_cards(text), wilds))


def name(text: str, wilds: frozenset[int] = JOKERS_WILD) -> str:
    return evaluate(parse_cards(text), wilds).name


def test_categories_rank_from_five_of_a_kind_down_to_high_card() -> None:
    ladder = [
        "As Ad JK Ac Ah",  # five of a kind
        "9h Th Jh Qh Kh",  # straight flush
        "Ks Kd Kc Kh 2c",  # four of a kind
        "Qs Qd Qc 3h 3c",  # full house
        "2h 7h 9h Jh Ah",  # flush
        "5c 6d 7h 8s 9c",  # straight
        "7c 7d 7h Ks 2c",  # three of a kind
        "7c 7d 5h 5s Ac",  # two pair
        "7c 7d 5h 4s Ac",  # pair
        "Ac Kd Qh Js 9c",  # high card
    ]
    keys = [key(hand) for hand in ladder]
    assert [k[0] for k in keys] == list(range(9, -1, -1))
    assert keys == sorted(keys, reverse=True)


def test_a_wild_is_fully_wild_and_makes_five_of_a_kind() -> None:
    assert name("7s 7d 7c 7h JK") == "five of a kind, sevens"
    assert name("JK JK JK JK JK") == "five of a kind, aces"
    assert key("7s 7d 7c 7h JK") > key("Ts Js Qs Ks As")


def test_equal_hands_tie_whether_made_with_wilds_or_not() -> None:
    assert key("Ks Kd 4c 7h 9c") == key("Ks JK 4c 7h 9c")
    assert key("Ks Kd Kc 2h 2c") == key("Ks Kd JK 2h 2d")


def test_a_wild_in_a_flush_becomes_the_highest_rank_the_suit_lacks() -> None:
    hand = evaluate(parse_cards("Ah Kh 9h 4h JK"))
    assert hand.name == "flush, ace high"
    assert key("Ah Kh 9h 4h JK") == key("Ah Kh Qh 9h 4h")
    assert [str(c) for c in hand.stands_for] == ["Ah", "Kh", "Qh", "9h", "4h"]


def test_the_wheel_is_the_lowest_straight_and_straights_do_not_wrap() -> None:
    assert name("Ah 2c 3d 4s 5h") == "straight, five high"
    assert key("Ah 2c 3d 4s 5h") < key("2c 3d 4s 5h 6c")
    assert name("Kh Ac 2d 3s 4h") == "high card, ace"
    assert name("Kh JK 2d 3s 4h") == "pair of kings"
    assert name("Ah JK 3d 4s 5h") == "straight, five high"


def test_short_rows_are_padded_with_worthless_cards() -> None:
    assert key("As") > key("Ks")
    assert key("As Kd") > key("As")
    assert key("2c 2d") > key("As Kd Qc Jh")
    assert name("JK") == "high card, ace"
    assert key("JK") == key("Ah")
    assert name("") == "no cards"
    assert key("") < key("2c")
    assert name("JK JK") == "pair of aces"


def test_only_the_best_five_cards_count_with_the_usual_kickers() -> None:
    assert key("Ac Ad Kh Qs Jc 2d 3h") == key("Ac Ad Kh Qs Jc")
    assert key("Ac Ad Kh Qs Tc") < key("Ac Ad Kh Qs Jc 2d")


def test_deuces_are_wild_only_in_deuces_wild() -> None:
    assert name("2c 2d Ks Kd 9h", DEUCES_WILD) == "four of a kind, kings"
    assert name("2c 2d Ks Kd 9h", JOKERS_WILD) == "two pair, kings and deuces"


def test_five_suits_make_a_natural_five_of_a_kind() -> None:
    assert name("9c 9d 9h 9s 9x", NO_WILDS) == "five of a kind, nines"
    assert name("2x 7x 9x Jx Ax", NO_WILDS) == "flush, ace high"


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("Kh Kd Ks 5c 5d 2h", "full house, kings over fives"),
        ("7c 7d 4h 4s Ac 9d", "two pair, sevens and fours"),
        ("Tc Td", "pair of tens"),
        ("9h Th Jh Qh Kh", "straight flush, king high"),
        ("Ts Tc Th 4d", "three of a kind, tens"),
        ("Ts Tc Th Td", "four of a kind, tens"),
        ("3c 9d", "high card, nine"),
    ],
)
def test_hands_have_readable_names(cards: str, expected: str) -> None:
    assert name(cards) == expected


def test_the_best_cards_are_the_five_used_with_what_wilds_stand_for() -> None:
    hand = evaluate(parse_cards("3c Kh 7d JK Ks 9s 2h"))
    assert hand.name == "three of a kind, kings"
    assert [str(c) for c in hand.best] == ["Kh", "Ks", "JK", "9s", "7d"]
    assert [str(c) for c in hand.stands_for][2][0] == "K"


def test_duplicates_and_unwild_jokers_are_refused() -> None:
    with pytest.raises(DuplicateCardError, match="As appears twice"):
        score(parse_cards("As Kd As"))
    with pytest.raises(WildnessError, match="no jokers"):
        score(parse_cards("As JK"), NO_WILDS)
    row = HandRow(parse_cards("As"))
    with pytest.raises(DuplicateCardError):
        row.add(parse_cards("As")[0])


def test_a_row_copy_grows_independently() -> None:
    row = HandRow(parse_cards("As Ad"))
    other = row.copy()
    other.add(parse_cards("Ah")[0])
    assert row.hand().name == "pair of aces"
    assert other.hand().name == "three of a kind, aces"
    assert len(row) == 2 and len(other) == 3
