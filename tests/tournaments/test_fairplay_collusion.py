"""Issue 43: the collusion audit on the service's stored results. Two Big Two bots in
league at 4-seat tables (bench.fairplay._cheaters.SoftPlayPolicy: they tell each other their seats,
the server never contests its captain) are flagged as a pair with their evidence; the
honest bots' pairs are not. Matches played by the real referee, stored through
lease.finish_match (tests/tournaments/fairplay_matches.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.tournaments.fairplay_matches import (
    greedy,
    random_bot,
    soft_pair,
    store_match,
    version_of,
)
from tournaments.fairplay import collusion, flags
from tournaments.fairplay.rotation_order import StoredMatch
from tournaments.models import FairPlayFlag


@pytest.mark.django_db
def test_a_soft_playing_pair_at_four_seat_tables_is_flagged_and_honest_pairs_are_not() -> None:
    captain, server = version_of("captain"), version_of("server")
    honest = [version_of(f"honest{i}") for i in range(4)]
    makers = {captain.pk: None, server.pk: None}
    rng = random.Random(43)
    for number in range(48):
        others = rng.sample(honest, 2 if number % 2 else 3)
        seated = (
            [captain, server, *others] if number % 2 else [rng.choice([captain, server]), *others]
        )
        rng.shuffle(seated)
        team: dict[str, object] = {}
        a, b = soft_pair(team)
        makers = {captain.pk: a, server.pk: b}
        policy = [
            makers.get(v.pk) or (greedy if honest.index(v) < 2 else random_bot) for v in seated
        ]
        store_match(seated, policy, seed=4300 + number, deals=2)
    found = flags.audit_collusion("bigtwo")
    assert found.flagged == sorted([captain.pk, server.pk])
    flag = FairPlayFlag.objects.get()
    assert flag.kind == "collusion" and {flag.version_id, flag.partner_id} == {
        captain.pk,
        server.pk,
    }
    assert flag.version_id == captain.pk  # the one that gained
    assert flag.p_value <= flag.threshold and flag.deals == 48 and flag.matches == 24
    tests = {t["test"]: t for t in flag.evidence["tests"]}
    assert tests["dumping"]["effect"] > 0 and tests["dumping"]["p"] <= tests["dumping"]["threshold"]


def test_the_pair_effect_is_not_taken_into_the_strengths_of_a_pair_always_near() -> None:
    """A pair that shares three tables in four: its transfer would be taken into the two
    bots' strengths and hidden from a plain mean of residuals; the partial effect finds
    it, with an error from the tables where they are apart, and no other pair."""
    rng = np.random.default_rng(7)
    matches = []
    for number in range(400):
        seated = (
            [0, 1, *rng.choice([2, 3, 4, 5], 2, replace=False)]
            if number % 4
            else list(rng.choice([0, 1, 2, 3, 4, 5], 4, replace=False))
        )
        scores = rng.normal(0, 3, 4)
        if 0 in seated and 1 in seated:
            scores[seated.index(0)] += 3.0
            scores[seated.index(1)] -= 3.0
        scores -= scores.mean()
        games = [{"deal": 0, "seating": [0, 1, 2, 3], "result": {"scores": list(scores)}}]
        matches.append(StoredMatch(number, tuple(int(v) for v in seated), True, games))
    found = {(f.kind, f.a, f.b): f for f in collusion.audit(matches)}
    dumping = found["dumping", 0, 1]
    assert dumping.flagged and abs(dumping.effect - 3.0) < 3 * dumping.error
    assert not any(f.flagged for key, f in found.items() if key[1:] != (0, 1))
