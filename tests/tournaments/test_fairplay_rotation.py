"""Issue 43: the rotation-order audit on the service's stored results.

A bot that carries a deal to its later rotations (bench.fairplay._cheaters.CarryingPolicy, a
perfect channel) scores better there than in the deal's first rotation; its honest
tablemates, playing the same deals, do not. The matches are played by the real referee
and engine and stored through lease.finish_match (tests/tournaments/fairplay_matches.py).
"""

from __future__ import annotations

import random

import pytest

from tests.tournaments.fairplay_matches import carrying, greedy, round_robins, version_of
from tournaments.fairplay import rotation_order, significance, stored
from tournaments.fairplay.rotation_order import StoredMatch


@pytest.mark.django_db
def test_a_bot_that_carries_deals_to_later_rotations_is_flagged_and_its_tablemates_are_not() -> (
    None
):
    honest_a, honest_b, cheater = (version_of(n) for n in ("honest-a", "honest-b", "carrier"))
    entrants = [(honest_a, greedy), (honest_b, greedy), (cheater, carrying({}))]
    matches = round_robins(entrants, rounds=6, deals=4, seed=43)
    findings = rotation_order.audit(stored.finished("bigtwo"))
    assert set(findings) == {honest_a.pk, honest_b.pk, cheater.pk}
    caught = findings[cheater.pk]
    assert caught.flagged and caught.p <= caught.threshold
    assert caught.deals == 48 and caught.matches == 12
    assert caught.gain > 0 and caught.better > 2 * caught.worse
    theirs = {m.pk for m in matches if cheater.pk in {s.version_id for s in m.seats.all()}}
    assert set(caught.evidence) <= theirs and caught.evidence
    assert not findings[honest_a.pk].flagged and not findings[honest_b.pk].flagged
    assert findings[honest_a.pk].gain < caught.gain / 2


@pytest.mark.django_db
def test_house_bots_anchor_the_fit_and_are_never_tested() -> None:
    house = version_of("house-greedy")
    house.bot.house_policy = "greedy"
    house.bot.save()
    other = version_of("uploaded")
    round_robins([(house, greedy), (other, greedy)], rounds=10, deals=3, seed=7)
    findings = rotation_order.audit(
        stored.finished("bigtwo"), honest=stored.house_versions("bigtwo")
    )
    assert set(findings) == {other.pk}
    assert not findings[other.pk].flagged


def game(deal: int, seating: list[int], scores: list[float]) -> dict:
    return {"deal": deal, "seating": seating, "result": {"scores": scores, "places": [1, 2]}}


def test_deals_touched_by_a_fault_are_left_out() -> None:
    games = [
        game(0, [0, 1], [5, -5]),
        game(1, [0, 1], [1, -1]),
        game(0, [1, 0], [-3, 3]),  # bot 0 sits in seat 1 now: it scored 3 after 5
        game(1, [1, 0], [9, -9]),  # a fault here retires a seat for this and later games
    ]
    match = StoredMatch(1, (10, 11), True, games, [{"bot": 0, "game": 3}])
    assert rotation_order.later_minus_first(match) == [(-2.0, 2.0)]
    at_start = StoredMatch(1, (10, 11), True, games, [{"bot": 1, "game": None}])
    assert rotation_order.later_minus_first(at_start) == []
    assert rotation_order.later_minus_first(StoredMatch(1, (10, 11), False, games)) == []


def test_a_tiring_opponent_does_not_make_its_tablemates_look_like_cheaters() -> None:
    """Bot 9 plays 4 points worse in every later rotation (it spent its time bank early):
    every tablemate's later-minus-first rises by 4, yet the joint fit puts the change on
    bot 9 and leaves them honest."""
    rng = random.Random(5)
    matches = []
    for number in range(600):
        a, b = rng.sample([1, 2, 3, 9], 2)
        luck = rng.gauss(0, 3)
        later = luck + (-4 if a == 9 else 4 if b == 9 else 0) + rng.gauss(0, 1)
        games = [game(0, [0, 1], [-luck, luck]), game(0, [1, 0], [-later, later])]
        matches.append(StoredMatch(number, (a, b), True, games))
    findings = rotation_order.audit(matches)
    raw = {v: f.mean_difference for v, f in findings.items()}
    assert all(raw[v] > 0.7 for v in (1, 2, 3))  # the plain statistic would blame them
    assert not any(findings[v].flagged for v in (1, 2, 3, 9))
    assert findings[9].gain < -3.0 and all(abs(findings[v].gain) < 1.5 for v in (1, 2, 3))


def test_holm_keeps_the_family_wise_threshold() -> None:
    p = {"a": 0.001, "b": 0.004, "c": 0.02, "d": 0.0026}
    assert significance.holm(p, 0.01) == {"a": 0.0025, "d": 0.01 / 3, "b": 0.005, "c": 0.01}
    assert significance.flagged(p, 0.01) == {"a", "d", "b"}
    assert significance.flagged({"a": 0.006, "b": 0.007}, 0.01) == set()
    assert significance.upper_p(0.0) == pytest.approx(0.5)
    assert significance.upper_p(2.326) == pytest.approx(0.01, rel=1e-3)
