"""Card notation, decks and seeded randomness (rules.md: common to all games)."""

import pytest

from judge.cards import JOKER, CardParseError, format_cards, make_deck, parse_card, parse_cards
from judge.rng import derive_seed, rng


def test_every_card_text_round_trips() -> None:
    deck = make_deck(suits=5, jokers=2)
    assert parse_cards(format_cards(deck)) == deck
    assert len(set(format_cards(deck))) == 66  # 65 distinct cards and the joker


@pytest.mark.parametrize("token", ["1s", "10h", "as", "AS", "Ay", "J", "", "JKR", "jk", " Ts"])
def test_it_rejects_a_bad_token_naming_it(token: str) -> None:
    with pytest.raises(CardParseError) as raised:
        parse_card(token)
    assert repr(token) in str(raised.value)


def test_it_parses_strings_and_lists() -> None:
    assert format_cards(parse_cards("Ts, Ad 2c JK")) == ["Ts", "Ad", "2c", "JK"]
    assert parse_cards(["JK"]) == [JOKER]
    with pytest.raises(CardParseError, match="'Zz'"):
        parse_cards("Ts Zz")


@pytest.mark.parametrize(("suits", "jokers", "size"), [(4, 0, 52), (4, 2, 54), (5, 0, 65)])
def test_decks_have_the_right_size(suits: int, jokers: int, size: int) -> None:
    assert len(make_deck(suits, jokers)) == size


def test_randomness_depends_only_on_the_path() -> None:
    assert rng(7, 1).random() == rng(7, 1).random()
    assert rng(7, 1).random() != rng(7, 2).random()
    assert derive_seed(7, 1) == derive_seed(7, 1) != derive_seed(7, 2)
    assert 0 <= derive_seed(1) < 2**63
