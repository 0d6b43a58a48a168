"""The ladder's pair gains as one matrix (issue 47: the 50-bot calibration cells) choose
what the pair-by-pair rule chooses."""

from __future__ import annotations

import math
import random
from collections import Counter

from tournaments.competitions import matchmaking
from tournaments.competitions.matchmaking import Pairs, Player, difference_gain


def field(seed: int, n: int) -> tuple[list[Player[int]], Counter[tuple[int, int]]]:
    rng = random.Random(seed)
    players = [
        Player(
            k,
            rng.gauss(1500, 200),
            rng.choice([350.0, rng.uniform(30, 300)]),
            rng.randrange(20),
            rng.choice([None, None, "ann", "bob"]),
        )
        for k in range(n)
    ]
    met = Counter({(a, b): rng.randrange(1, 5) for a in range(n) for b in range(a + 1, n)})
    for pair in rng.sample(sorted(met), len(met) // 2):
        del met[pair]
    return players, met


def test_the_matrix_holds_each_pairs_difference_gain() -> None:
    players, met = field(1, 13)
    matrix = matchmaking.gain_matrix(players, met, 0.7)
    for a in players:
        for b in players:
            if a is not b:
                meetings = met.get((a.key, b.key), 0) or met.get((b.key, a.key), 0)
                expected = difference_gain(a, b, meetings, 0.7)
                assert math.isclose(matrix[a.key, b.key], expected, rel_tol=1e-9)


def test_the_best_partner_and_seat_are_the_pair_by_pair_ones() -> None:
    for seed in range(20):
        players, met = field(seed, 12)
        left = {id(p) for p in players[2:]}
        shrink = 1 / 1.44
        covered, scalar = Pairs(met), Pairs(met)
        found = covered.best_of(players, players, left, shrink)
        one_by_one = [
            max(
                (
                    difference_gain(a, b, met[a.key, b.key] or met[b.key, a.key], shrink)
                    for b in players
                    if b is not a and id(b) in left and not matchmaking.same_owner(a, b)
                ),
                default=0.0,
            )
            for a in players
        ]
        assert [round(g, 9) for g in found] == [round(g, 9) for g in one_by_one]
        table = [players[seed % 12]]
        while len(table) < 4:
            seat = covered.best_seat(table, players, shrink)
            assert seat is scalar._best_seat_one_by_one(table, players, shrink)
            if seat is None:
                break
            table.append(seat)


def test_two_players_of_one_owner_never_share_a_table() -> None:
    players = [Player(k, 1500.0 + k, 350.0, 0, "ann" if k < 3 else None) for k in range(5)]
    for pick in matchmaking.choose(players, 3, tables=2):
        assert sum(p.owner == "ann" for p in pick.seats) <= 1
