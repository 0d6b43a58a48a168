"""A duel's state: rounds folded in pair by pair, the cap, the decision, JSON both ways."""

from __future__ import annotations

import math

import pytest

from judge.duel.sprt import Decision, Sprt
from judge.duel.state import DuelState

#: Two-player scores: B in seat 0 of the first match and seat 1 of the second.
B_WINS_BOTH = ([[3, 1]], [[1, 3]])
SPLIT = ([[3, 1]], [[3, 1]])


def test_a_round_adds_one_pair_per_deal_and_the_llr_after_it() -> None:
    state = DuelState(Sprt()).record_round([[3, 1], [0, 2]], [[1, 3], [1, 1]])
    # Deal 0: B wins both games (2 points); deal 1: B loses, then draws (0.5).
    assert state.penta.counts == (0, 1, 0, 0, 1)
    assert state.history == ((4, state.llr),) and state.decision is Decision.RUNNING


def test_b_winning_every_pair_is_accepted_at_the_binomial_count() -> None:
    # Only whole wins: each pair adds about ln(s1 / s0) (the pseudo-counts aside), so H1
    # comes at the first count n with n ln(s1 / 0.5) >= ln 19.
    test = Sprt(elo0=0, elo1=100)
    s1 = test.scores[1]
    needed = math.ceil(math.log(19) / math.log(s1 / 0.5))
    state = DuelState(test)
    while state.decision is Decision.RUNNING:
        state = state.record_round(*B_WINS_BOTH)
    assert state.decision is Decision.H1 and state.penta.pairs == needed
    assert state.verdict().startswith("H1 accepted: B is stronger than A")
    with pytest.raises(ValueError, match="the duel is over"):
        state.record_round(*B_WINS_BOTH)


def test_the_cap_cuts_the_last_round_and_ends_the_duel() -> None:
    state = DuelState(Sprt(max_games=6))
    assert state.pairs_next(10) == 3
    state = state.record_round([[3, 1]] * 2, [[3, 1]] * 2)
    assert state.pairs_next(10) == 1
    state = state.record_round(*SPLIT)
    assert state.decision is Decision.CAP and state.pairs_next(10) == 0
    assert state.verdict().startswith("no decision: the cap of 6 games came first")


def test_a_round_of_unequal_matches_is_refused() -> None:
    with pytest.raises(ValueError, match="same deals, not 2 and 1 games"):
        DuelState(Sprt()).record_round([[3, 1], [3, 1]], [[3, 1]])


def test_the_state_survives_json() -> None:
    state = DuelState(Sprt(elo0=-5, elo1=15, max_games=100)).record_round(*B_WINS_BOTH)
    state = state.record_round([[0, 0]], [[0, 0]])
    data = state.to_json()
    again = DuelState.from_json(data)
    assert again.penta == state.penta and again.test == state.test
    assert again.decision is state.decision and again.to_json() == data
    assert data["pentanomial"] == [0, 0, 1, 0, 1] and data["games"] == 4
