"""The Big Two engine: dealing, turns, tricks, passing, scoring, options (seed 004, rules.md).

Positions are built by dealing from a seed and then setting the hands and the turn
directly (``place``): the engine keeps its state in plain attributes for that reason.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from judge.engine import GameError, IllegalActionError
from judge.games import replay
from judge.games.bigtwo import BigTwo
from judge.games.bigtwo.combos import CARD_ID, CARD_TEXT, classify

#: The conformance suite, whose tests the rules page may name too.
CONFORMANCE = Path(__file__).with_name("test_conformance.py")


def ids(text: str) -> list[int]:
    return sorted(CARD_ID[t] for t in text.split())


def place(
    hands: list[str],
    turn: int = 0,
    trick: tuple[str, int] | None = None,
    options: dict[str, Any] | None = None,
) -> BigTwo:
    """A game of len(hands) players in the given position (no first-lead rule)."""
    game = BigTwo(seed=0, players=len(hands), options=options)
    game.hands = [ids(hand) for hand in hands]
    game.turn, game.leader, game.must_contain = turn, turn, None
    if trick is not None:
        game.trick = classify(ids(trick[0]), game.straights)
        game.trick_seat = game.leader = trick[1]
    return game


def play_out(game: BigTwo, rnd: random.Random) -> None:
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, rnd.choice(game.legal_actions(seat)))


# Dealing.


def test_four_players_get_13_cards_each_from_the_whole_pack() -> None:
    game = BigTwo(seed=1)
    assert [len(hand) for hand in game.hands] == [13] * 4
    assert sorted(c for hand in game.hands for c in hand) == list(range(52))


def test_three_players_get_17_and_the_last_card_goes_to_the_holder_of_3d() -> None:
    seen_3d_last = False
    for seed in range(300):
        game = BigTwo(seed=seed, players=3)
        last = CARD_ID[game.deck_orders[0][-1]]
        wanted = CARD_ID["4d"] if last == CARD_ID["3d"] else CARD_ID["3d"]
        holder = next(s for s, hand in enumerate(game.hands) if wanted in hand)
        assert last in game.hands[holder] and len(game.hands[holder]) == 18
        assert sorted(len(hand) for hand in game.hands) == [17, 17, 18]
        seen_3d_last |= last == CARD_ID["3d"]
    assert seen_3d_last  # the 4d case did occur


def test_two_players_get_13_each_and_the_holder_of_the_lowest_card_held_leads() -> None:
    seen_3d_unused = False
    for seed in range(40):
        game = BigTwo(seed=seed, players=2)
        assert [len(hand) for hand in game.hands] == [13, 13] and len(game.unused) == 26
        lowest = min(game.hands[0] + game.hands[1])
        assert lowest in game.hands[game.to_act()[0]]
        assert all(CARD_TEXT[lowest] in play for play in game.legal_actions(game.turn))
        seen_3d_unused |= CARD_ID["3d"] in game.unused
    assert seen_3d_unused


def test_dealing_starts_at_seat_k_in_deal_k_so_positions_rotate() -> None:
    game = BigTwo(seed=3, options={"deals": 4})
    play_out(game, random.Random(0))
    for deal, order in enumerate(game.deck_orders):
        dealt = game.revealed()["deals"][deal]["dealt"]
        for i, card in enumerate(order):
            assert card in dealt[(deal + i) % 4]


def test_the_same_seed_deals_the_same_cards_and_another_seed_others() -> None:
    assert BigTwo(seed=9).hands == BigTwo(seed=9).hands
    assert BigTwo(seed=9).hands != BigTwo(seed=10).hands


# The first lead and turns.


def test_the_holder_of_3d_leads_and_every_first_play_contains_it() -> None:
    game = BigTwo(seed=5)
    seat = game.to_act()[0]
    assert CARD_ID["3d"] in game.hands[seat] and game.observation(seat)["must_contain"] == "3d"
    legal = game.legal_actions(seat)
    assert legal and all("3d" in play for play in legal) and ["3d"] in legal
    other = next(CARD_TEXT[c] for c in game.hands[seat] if c != CARD_ID["3d"])
    assert game.why_illegal(seat, [other]) == (
        "the first play of the deal must contain 3d, the lowest card held"
    )


def test_play_goes_to_the_next_seat_and_others_must_wait() -> None:
    game = place(["3d 4d", "5d 6d", "7d 8d", "9d Td"], turn=3)
    game.apply(3, ["9d"])
    assert game.to_act() == (0,)
    assert game.legal_actions(1) == []
    with pytest.raises(IllegalActionError, match="not seat 1's turn"):
        game.apply(1, ["5d"])


def test_a_trick_keeps_the_size_of_its_lead() -> None:
    game = place(["3d 3c 9s", "4d 4c 5d 5c 6h", "7d", "8d"])
    game.apply(0, ["3d", "3c"])
    assert game.legal_actions(1) == ["pass", ["4d", "4c"], ["5d", "5c"]]
    assert "play 2 card(s)" in str(game.why_illegal(1, ["6h"]))


def test_passing_is_allowed_when_able_to_play_and_one_may_play_again_later() -> None:
    game = place(["3d 9s", "4d Ts", "5d Js", "6d Qs"])
    game.apply(0, ["3d"])
    game.apply(1, "pass")  # could have played
    game.apply(2, ["5d"])
    game.apply(3, "pass")
    game.apply(0, "pass")
    assert game.legal_actions(1)[:2] == ["pass", ["Ts"]]
    game.apply(1, ["Ts"])
    assert game.trick is not None and game.trick_seat == 1


def test_when_all_others_pass_in_a_row_the_last_player_leads_anything() -> None:
    game = place(["3d 9s 9c", "4d Ts", "5d Js", "6d Qs"])
    game.apply(0, ["3d"])
    for seat in (1, 2, 3):
        game.apply(seat, "pass")
    assert game.to_act() == (0,) and game.trick is None and game.leader == 0
    assert game.legal_actions(0) == [["9c"], ["9s"], ["9c", "9s"]]


def test_a_leader_may_not_pass() -> None:
    game = place(["3d", "4d", "5d", "6d"])
    assert "must play" in str(game.why_illegal(0, "pass"))
    assert "pass" not in game.legal_actions(0)


# The end of a deal and scoring.


def test_the_deal_ends_the_moment_a_hand_is_empty_and_losers_pay_per_card() -> None:
    game = place(["3d 4d", "5d 6d 7d", "8d 9d Td Jd", "Qd"], turn=3)
    game.apply(3, ["Qd"])
    assert game.is_over() and game.to_act() == ()
    assert game.result().scores == (-2, -3, -4, 9)
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.apply(0, ["3d"])


def test_a_loser_pays_double_from_10_cards_and_triple_at_13() -> None:
    hands = ["3d", "4d 4c 4h 4s 5d 5c 5h 5s 6d", "7d 7c 7h 7s 8d 8c 8h 8s 9d 9c"]
    hands.append("Td Tc Th Ts Jd Jc Jh Js Qd Qc Qh Qs Kd")
    game = place(hands)
    game.apply(0, ["3d"])
    assert game.result().scores == (9 + 20 + 39, -9, -20, -39)


def test_the_score_thresholds_are_options() -> None:
    hands = ["3d", "4d 4c 4h 4s 5d", "7d 7c 7h 7s 8d 8c 8h", "Td Tc Th"]
    game = place(hands, options={"double_at": 5, "triple_at": 7})
    game.apply(0, ["3d"])
    assert game.result().scores == (10 + 21 + 3, -10, -21, -3)


def test_places_follow_cards_left_and_equal_counts_share_a_place() -> None:
    game = place(["3d", "4d 5d", "6d 7d", "8d 9d Td"])
    game.apply(0, ["3d"])
    assert game.result().places == (1, 2, 2, 4)


def test_a_game_of_several_deals_scores_the_total_of_its_deals() -> None:
    game = BigTwo(seed=11, options={"deals": 3})
    play_out(game, random.Random(1))
    deals = game.revealed()["deals"]
    assert len(deals) == 3 == len(game.deck_orders)
    totals = [sum(deal["scores"][s] for deal in deals) for s in range(4)]
    assert list(game.result().scores) == totals and sum(totals) == 0
    for deal in deals:
        assert sum(not hand for hand in deal["left"]) == 1


def test_the_result_is_refused_before_the_end() -> None:
    with pytest.raises(GameError, match="not over"):
        BigTwo(seed=1).result()


# Options.


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"straights": "wrapping"}, "'wrapping'"),
        ({"deals": 0}, "'deals' must be a whole number from 1 to 20, not 0"),
        ({"deals": 1_000_000_000}, "'deals' .* from 1 to 20, not 1000000000"),
        ({"deals": "3"}, "'deals' .* not '3'"),
        ({"double_at": True}, "'double_at' .* not True"),
        ({"triple_at": -1}, "'triple_at' .* not -1"),
        ({"double_at": 14}, "double_at=14"),
        ({"jokers": 2}, "'jokers'"),
    ],
)
def test_it_refuses_a_bad_option_value_naming_it(options: dict[str, Any], named: str) -> None:
    with pytest.raises(GameError, match=named):
        BigTwo(seed=1, options=options)


@pytest.mark.parametrize("players", [1, 5])
def test_it_is_played_by_two_to_four_players(players: int) -> None:
    with pytest.raises(GameError, match=f"2 to 4 players, not {players}"):
        BigTwo(seed=1, players=players)


def test_the_poker_straights_option_makes_a_2_3_4_5_a_straight_and_drops_j_to_2() -> None:
    hands = ["3d 4c 5h 6s Ad 2c Jh Qh Kh", "7d", "8d", "9d"]
    big_two, poker = place(hands), place(hands, options={"straights": "poker"})
    wheel, top = ["3d", "4c", "5h", "Ad", "2c"], ["Jh", "Qh", "Kh", "Ad", "2c"]
    assert top in big_two.legal_actions(0) and wheel not in big_two.legal_actions(0)
    assert wheel in poker.legal_actions(0) and top not in poker.legal_actions(0)


# Refusals and the faulted seat.


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (["Kd"], "you do not hold ['Kd']"),
        (["3d", "4c"], "is not a pair"),
        (["3d", "3c", "4c"], "is not a triple"),
        (["3d", "3c", "4c", "4d"], "4 cards are no combination"),
        (["3d", "3c", "4c", "4d", "9s"], "is not a five-card hand"),
        (["4c"], "['4c'] (single) does not beat ['9h'] (single)"),
        (["3c", "3d"], "list the cards low to high in Big Two order: ['3d', '3c']"),
        (["Zz"], "'Zz' is not a card of the 52-card pack"),
        (["3d", "3d"], "names a card twice"),
        ("fold", "'fold' is not an action"),
        ([3], "is not an action"),
    ],
)
def test_it_explains_a_refusal_in_big_two_terms(action: Any, reason: str) -> None:
    game = place(["3d 3c 4c 4d 9s Ts", "5d", "6d", "7d"], trick=("9h", 3))
    if (isinstance(action, list) and len(action) not in (1, 5)) or action == ["3c", "3d"]:
        game.trick, game.trick_seat = None, None
    explained = game.why_illegal(0, action)
    assert explained is not None and reason in explained
    with pytest.raises(IllegalActionError, match="seat 0"):
        game.apply(0, action)


def test_why_illegal_allows_exactly_the_legal_actions() -> None:
    rnd = random.Random(5)
    checked = 0
    for seed in range(60):
        game = BigTwo(seed=seed, players=rnd.choice((2, 3, 4)))
        while not game.is_over():
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            hand = [CARD_TEXT[c] for c in game.hands[seat]] + ["2s", "3d"]
            for _ in range(20):
                tried: Any = sorted(rnd.sample(hand, min(len(hand), rnd.choice((1, 2, 3, 5)))))
                tried = sorted(tried, key=CARD_ID.get) if rnd.random() < 0.8 else tried
                assert (game.why_illegal(seat, tried) is None) == (tried in legal), tried
                checked += 1
            assert all(game.why_illegal(seat, action) is None for action in legal)
            assert (game.why_illegal(seat, "pass") is None) == ("pass" in legal)
            game.apply(seat, rnd.choice(legal))
    assert checked > 20_000


def test_a_faulted_seat_passes_or_leads_its_lowest_single() -> None:
    game = BigTwo(seed=2)
    seat = game.to_act()[0]
    assert game.fallback_action(seat) == ["3d"]
    game.apply(seat, ["3d"])
    assert game.fallback_action(game.to_act()[0]) == "pass"
    lead = place(["5c 9s", "4d", "6d", "7d"])
    assert lead.fallback_action(0) == ["5c"]


# What a seat sees.


def test_an_observation_shows_the_table_and_only_the_seats_own_cards() -> None:
    game = place(["3d 3c 9s", "4d 4c Ts", "5d Js", "6d Qs"])
    game.apply(0, ["3d", "3c"])
    game.apply(1, "pass")
    seen = game.observation(2)
    assert seen["hand"] == ["5d", "Js"] and seen["counts"] == [1, 3, 2, 2]
    assert seen["trick"] == {"cards": ["3d", "3c"], "kind": "pair", "seat": 0}
    assert seen["plays"] == [[0, ["3d", "3c"]], [1, "pass"]]
    assert seen["to_act"] == 2 and seen["leader"] == 0 and seen["scores"] == [0, 0, 0, 0]
    assert json.loads(json.dumps(seen)) == seen
    assert not {"9s", "4d", "4c", "Ts", "6d", "Qs"} & set(json.dumps(seen).split('"'))


# Properties over many random deals.


def check_conserved(game: BigTwo) -> None:
    played = [c for _, combo in game.plays if combo is not None for c in combo.cards]
    held = [c for hand in game.hands for c in hand]
    assert sorted(held + played + game.unused) == list(range(52))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_thousands_of_random_deals_run_to_a_zero_sum_end_conserving_cards(players: int) -> None:
    rnd = random.Random(players)
    for seed in range(2000):
        game = BigTwo(seed=seed, players=players)
        steps = 0
        while not game.is_over():
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            assert legal and (legal[0] == "pass") == (game.trick is not None)
            assert game.fallback_action(seat) in legal
            game.apply(seat, rnd.choice(legal))
            steps += 1
            if steps % 16 == 0 and not game.is_over():
                check_conserved(game)
        result = game.result()
        assert sum(result.scores) == 0 and sorted(result.places)[0] == 1
        left = game.revealed()["deals"][0]["left"]
        assert [len(hand) for hand in left].count(0) == 1


@pytest.mark.parametrize("straights", ["big-two", "poker"])
def test_legal_actions_equal_a_brute_force_filter_in_random_games(straights: str) -> None:
    from judge.games.bigtwo.combos import brute_force_plays

    rnd = random.Random(13)
    positions = 0
    for seed in range(400):
        game = BigTwo(seed=seed, players=(2, 4, 4, 3)[seed % 4], options={"straights": straights})
        while not game.is_over():
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            if rnd.random() < 0.12 and len(game.hands[seat]) <= 14:
                slow = brute_force_plays(game.hands[seat], game.trick, straights, game.must_contain)
                passing = [] if game.trick is None else ["pass"]
                assert legal == passing + [c.texts() for c in slow]
                positions += 1
            game.apply(seat, rnd.choice(legal))
    assert positions > 2000


def test_a_finished_record_replays_to_the_same_result() -> None:
    rnd = random.Random(21)
    for seed in range(40):
        game = BigTwo(seed=seed, players=(2, 3, 4)[seed % 3], options={"deals": 2})
        play_out(game, rnd)
        again = replay(json.loads(json.dumps(game.record())))
        assert again.result() == game.result() and again.revealed() == game.revealed()
    record = game.record()
    record["actions"][0][1] = "pass"  # the first lead may not pass
    with pytest.raises(IllegalActionError, match="you lead this trick"):
        replay(record)


def test_the_rules_page_names_only_tests_that_exist_and_every_rule_test() -> None:
    root = Path(__file__).resolve().parents[2]
    named = set(re.findall(r"`(test_\w+)`", (root / "docs/rules/tests/bigtwo.md").read_text()))
    defined = {
        name
        for path in Path(__file__).parent.glob("test_bigtwo*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE)
    }
    shared = set(re.findall(r"^def (test_\w+)", CONFORMANCE.read_text(), re.MULTILINE))
    assert named <= defined | shared, named - defined - shared
    assert len(defined - named) <= 4, defined - named  # a few check machinery, not rules
