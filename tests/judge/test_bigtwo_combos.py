"""Big Two combinations and their order (seed 004 and rules.md, Big Two).

``seed_beats`` below is written from the seed's wording alone, on card texts, without the
engine's ids or keys; the engine's ``classify`` and ``beats`` must agree with it.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise

import pytest

from judge.games.bigtwo.combos import (
    CARD_ID,
    CARD_TEXT,
    Combo,
    Kind,
    brute_force_plays,
    classify,
    combos_of_size,
    plays,
)

RANK_WORDS = "3456789TJQKA2"  # seed: 2 (high), A, K, ..., 4, 3
SUIT_WORDS = "dchs"  # seed: Spade - Heart - Club - Diamond, highest first
FIVE_ORDER = ["straight", "flush", "full-house", "four-of-a-kind", "straight-flush"]


def runs(straights: str) -> list[str]:
    """Rank runs that are straights, lowest first, as text."""
    line = RANK_WORDS if straights == "big-two" else "A23456789TJQKA"
    return [line[i : i + 5] for i in range(len(line) - 4)]


def rank(card: str) -> int:
    return RANK_WORDS.index(card[0])


def suit(card: str) -> int:
    return SUIT_WORDS.index(card[1])


def describe(cards: list[str], straights: str) -> tuple[str, tuple[int, ...]] | None:
    """(kind, what decides within the kind) from the seed's wording, or None if no combo."""
    counts = Counter(card[0] for card in cards)
    if len(set(cards)) != len(cards):
        return None
    if len(cards) == 1:
        return "single", (rank(cards[0]), suit(cards[0]))
    if len(cards) == 2 and len(counts) == 1:
        return "pair", (rank(cards[0]), max(suit(c) for c in cards))
    if len(cards) == 3 and len(counts) == 1:
        return "triple", (rank(cards[0]),)
    if len(cards) != 5:
        return None
    same_suit = len({card[1] for card in cards}) == 1
    for place, run in enumerate(runs(straights)):
        if sorted(run) == sorted(counts):
            top = next(card for card in cards if card[0] == run[-1])
            return ("straight-flush" if same_suit else "straight"), (place, suit(top))
    if same_suit:
        return "flush", (*sorted((rank(c) for c in cards), reverse=True), suit(cards[0]))
    shape = sorted(counts.values())
    if shape == [2, 3]:
        return "full-house", (RANK_WORDS.index(counts.most_common(1)[0][0]),)
    if shape == [1, 4]:
        return "four-of-a-kind", (RANK_WORDS.index(counts.most_common(1)[0][0]),)
    return None


def seed_beats(a: list[str], b: list[str], straights: str) -> bool | None:
    """Whether play ``a`` beats ``b`` by the seed; None where the seed cannot say (the two
    share the card that decides, so they never meet in one deal)."""
    da, db = describe(a, straights), describe(b, straights)
    assert da is not None and db is not None
    if len(a) != len(b):
        return False
    if da[0] != db[0]:
        return FIVE_ORDER.index(da[0]) > FIVE_ORDER.index(db[0])
    if da[1] == db[1]:
        return None
    return da[1] > db[1]


def combo(text: str, straights: str = "big-two") -> Combo:
    found = classify([CARD_ID[t] for t in text.split()], straights)
    assert found is not None, text
    return found


def is_combo(text: str, straights: str = "big-two") -> bool:
    return classify([CARD_ID[t] for t in text.split()], straights) is not None


def beats(a: str, b: str, straights: str = "big-two") -> bool:
    return combo(a, straights).beats(combo(b, straights))


def random_hand(rnd: random.Random, size: int = 13) -> list[int]:
    return sorted(rnd.sample(range(52), size))


def test_three_is_the_lowest_rank_and_two_the_highest() -> None:
    assert beats("2d", "As") and beats("Ad", "Ks") and beats("4d", "3s")
    assert CARD_TEXT[0] == "3d" and CARD_TEXT[51] == "2s"


def test_suit_breaks_a_tie_of_rank_spades_hearts_clubs_diamonds() -> None:
    assert beats("Kh", "Kc")  # the seed's example
    assert beats("Ks", "Kh") and beats("Kc", "Kd") and not beats("Kd", "Kc")


def test_a_pair_is_two_cards_of_one_rank_ranked_by_its_higher_suit() -> None:
    assert beats("Jd Js", "Jc Jh")  # the seed's example
    assert beats("Qd Qc", "Jh Js") and not is_combo("Jd Qd")


def test_a_triple_is_three_cards_of_one_rank_ranked_by_rank() -> None:
    assert beats("5d 5c 5h", "4c 4h 4s") and combo("5d 5c 5h").kind is Kind.TRIPLE
    assert not is_combo("5d 5c 6h")


def test_four_cards_are_never_a_play_but_four_of_a_kind_with_any_fifth_is() -> None:
    assert not is_combo("9d 9c 9h 9s")
    assert combo("3d 9d 9c 9h 9s").kind is Kind.FOUR_OF_A_KIND


def test_a_play_beats_only_plays_of_its_own_size() -> None:
    assert not beats("2s 2h 2c", "3d 3c") and not beats("3d 4c 5h 6s 7d", "Ad Ac Ah")
    assert not beats("2s", "3d 3c") and not beats("3d 3c", "2s")


def test_big_two_straights_run_from_3_to_7_up_to_j_to_2_without_wrapping() -> None:
    assert combo("3d 4c 5h 6s 7d").kind is Kind.STRAIGHT
    assert combo("Jd Qc Kh As 2d").kind is Kind.STRAIGHT
    assert beats("Jd Qc Kh As 2d", "Td Jc Qh Ks As")
    for no_run in ("3d 4c 5h 6s 2d", "3d 4c 5h As 2d", "4d 5c 6h Qs 2d"):  # 2-3-4-5-6, A-2-...
        assert not is_combo(no_run)


def test_poker_straights_run_from_a_2_3_4_5_up_to_10_to_a() -> None:
    wheel, six_high, ace_high = "3d 4c 5h As 2d", "3d 4c 5h 6s 2d", "Td Jc Qh Ks As"
    assert combo(wheel, "poker").kind is Kind.STRAIGHT
    assert beats(six_high, wheel, "poker") and beats(ace_high, six_high, "poker")
    assert not is_combo("Jd Qc Kh As 2d", "poker")


def test_a_straight_is_ranked_by_its_top_card_rank_then_suit() -> None:
    assert beats("4d 5c 6h 7s 8d", "3s 4s 5s 6s 7d")
    assert beats("3d 4c 5h 6s 7s", "3s 4s 5s 6h 7h")  # equal ranks: the 7's suit decides
    assert beats("2c 3d 4c 5h 6d", "As 2s 3s 4s 5h", "poker")  # the wheel tops at its 5


def test_five_cards_of_one_suit_in_no_run_are_a_flush_ranked_from_the_top_card_down() -> None:
    assert combo("3h 5h 7h 9h Jh").kind is Kind.FLUSH
    assert beats("3d 5d 7d 9d 2d", "4s 6s 8s Ts As")  # a 2 on top beats an ace
    assert beats("3d 6d 7d 9d Qd", "3s 5s 7s 9s Qs")  # 6 beats 5 in second-lowest place
    assert beats("3s 5s 7s 9s Qs", "3h 5h 7h 9h Qh")  # equal ranks: suit decides
    assert combo("3h 4h 5h Ah 2h").kind is Kind.FLUSH  # A-2-3-4-5 is no big-two run


def test_a_full_house_is_ranked_by_its_triple_whatever_its_pair() -> None:
    assert beats("3h 3s 2d 2c 2h", "4d 4c 4h 3d 3c")
    assert beats("5d 5c 5h 3d 3c", "4d 4c 4h 2s 2h")
    assert combo("4d 4c 4h 3d 3c").kind is Kind.FULL_HOUSE


def test_four_of_a_kind_is_ranked_by_its_four_whatever_its_fifth() -> None:
    assert beats("6d 6c 6h 6s 3d", "5d 5c 5h 5s 2s")


def test_a_straight_flush_is_ranked_like_a_straight_with_suit_breaking_ties() -> None:
    assert combo("3h 4h 5h 6h 7h").kind is Kind.STRAIGHT_FLUSH
    assert beats("4d 5d 6d 7d 8d", "3s 4s 5s 6s 7s")
    assert beats("3s 4s 5s 6s 7s", "3h 4h 5h 6h 7h")
    assert combo("3h 4h 5h Ah 2h", "poker").kind is Kind.STRAIGHT_FLUSH


def test_five_card_kinds_rank_straight_flush_full_house_four_then_straight_flush() -> None:
    ladder = ["Jd Qc Kh As 2s", "3d 5d 7d 9d Jd", "3d 3c 3h 4d 4c", "3d 3c 3h 3s 4d"]
    ladder.append("3s 4s 5s 6s 7s")
    for low, high in pairwise(ladder):
        assert beats(high, low) and not beats(low, high)


@pytest.mark.parametrize("straights", ["big-two", "poker"])
def test_every_subset_is_classified_as_the_seed_says(straights: str) -> None:
    rnd = random.Random(4)
    for _ in range(12):
        hand = random_hand(rnd)
        for size in (1, 2, 3, 4, 5):
            for chosen in combinations(hand, size):
                found = classify(chosen, straights)
                seed = describe([CARD_TEXT[c] for c in chosen], straights)
                assert (found is None) == (seed is None), chosen
                assert found is None or seed is None or found.kind.label == seed[0]


@pytest.mark.parametrize("straights", ["big-two", "poker"])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_beats_is_a_strict_total_order_agreeing_with_the_seed(straights: str, size: int) -> None:
    rnd = random.Random(size)
    pool = {
        c.cards: c for _ in range(40) for c in combos_of_size(random_hand(rnd), size, straights)
    }
    found = list(pool.values())
    for a in found:
        assert not a.beats(a)
    for _ in range(20_000):
        a, b = rnd.choice(found), rnd.choice(found)
        if a.cards == b.cards:
            continue
        assert a.beats(b) != b.beats(a)  # exactly one: asymmetric and total
        said = seed_beats(a.texts(), b.texts(), straights)
        if said is not None or not set(a.cards) & set(b.cards):
            assert a.beats(b) == said, (a.texts(), b.texts())
    for _ in range(5_000):
        a, b, c = (rnd.choice(found) for _ in range(3))
        if a.beats(b) and b.beats(c):
            assert a.beats(c)


@pytest.mark.parametrize("straights", ["big-two", "poker"])
def test_generated_plays_equal_a_brute_force_filter_of_every_subset(straights: str) -> None:
    rnd = random.Random(7)
    for i in range(400):
        deck = rnd.sample(range(52), 52)
        hand = sorted(deck[: rnd.choice((1, 3, 5, 8, 13, 13, 13, 17))])
        size = (1, 2, 3, 5, 0)[i % 5]
        options = combos_of_size(deck[20:], size, straights) if size else []
        trick = rnd.choice(options) if options else None
        must = rnd.choice(hand) if trick is None and i % 3 == 0 else None
        fast = plays(hand, trick, straights, must)
        slow = brute_force_plays(hand, trick, straights, must)
        assert [c.cards for c in fast] == [c.cards for c in slow]
