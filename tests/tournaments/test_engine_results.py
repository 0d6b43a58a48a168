"""Issue 30: real games for the calibration bench (bench/_engine_results.py).

A tiny library (3 bots of mixed policies, 3 Big Two deals a table) is played by the
engine into a temporary cache: its deals re-read as the service's units, a site of the
calibration bench draws its matches from it in the seat order it asks, and a build
that stopped is resumed (only the missing table is played).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bench import _engine_results
from bench._engine_results import Field, Library, MixedPolicy, table_path
from bench.ratings.ladder_schedule import Cell, League
from judge.bots import RandomPolicy
from judge.games.bigtwo import BigTwo
from judge.games.bigtwo.bots import GreedyPolicy
from tournaments.rating.model.units import match_units

FIELD = Field("bigtwo", 2, deals=3)


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Library:
    monkeypatch.setattr(_engine_results, "CACHE", tmp_path)
    return Library(FIELD, bots=3)


def test_every_deal_re_reads_as_one_unit_placed_by_its_totals(library: Library) -> None:
    assert sorted(library.deals) == [(0, 1), (0, 2), (1, 2)]
    for table, deals in library.deals.items():
        assert len(deals) == FIELD.deals
        for deal in deals:
            assert [g["seating"] for g in deal["games"]] == [[0, 1], [1, 0]]
            (unit,) = match_units(2, deal, duplicate=True, deals=1)
            a, b = deal["scores"]
            assert unit == ((1, 1) if a == b else (1, 2) if a > b else (2, 1)), table
    assert len(library.units()) == 3 * FIELD.deals
    assert sorted(library.truth()) == [0, 1, 2]


def test_a_site_draws_its_match_from_the_table_in_the_order_asked(library: Library) -> None:
    league = League({0: 0.0, 1: 0.0, 2: 0.0}, results=lambda _c, t, r: library.draw(t, r))
    league.play(Cell("bigtwo", 2), (2, 0), random.Random(5))
    drawn = library.draw((2, 0), random.Random(5))  # the same draw, to look at
    (unit,) = league.units
    assert unit.seats == (2, 0)
    assert unit.places == match_units(2, drawn, duplicate=True, deals=1)[0]

    # Bot 0 of the drawn result is bot 2, index 1 of the stored table (0, 2): the same
    # games, each seat's score where it was, the seating and the totals swapped.
    def swapped(stored: dict[str, Any]) -> bool:
        return (
            drawn["scores"] == stored["scores"][::-1]
            and drawn["places"] == stored["places"][::-1]
            and [g["result"] for g in drawn["games"]] == [g["result"] for g in stored["games"]]
            and [g["seating"] for g in drawn["games"]]
            == [[1 - bot for bot in g["seating"]] for g in stored["games"]]
        )

    assert any(swapped(stored) for stored in library.deals[0, 2])


def test_a_stopped_build_plays_only_the_missing_table(library: Library) -> None:
    kept = {t: table_path(FIELD, t).stat().st_mtime_ns for t in [(0, 1), (1, 2)]}
    missing = table_path(FIELD, (0, 2))
    missing.unlink()
    again = Library(FIELD, bots=3)
    assert missing.exists()
    assert again.deals[0, 2] == library.deals[0, 2]  # the same seeds: the same deals
    assert {t: table_path(FIELD, t).stat().st_mtime_ns for t in kept} == kept


@pytest.mark.parametrize("q", [0.0, 0.5, 1.0])
def test_a_mixed_bot_plays_the_strong_move_with_probability_q(q: float) -> None:
    """Through a whole Big Two game, each move is greedy's (q = 1), random's (q = 0) or
    some of each (q = 0.5), against twins of the two fed the same observations (random's
    twin only at q = 0, where its draws keep step with the mixed bot's)."""
    mixed = MixedPolicy(GreedyPolicy(1), RandomPolicy(2), q, seed=3)
    greedy, rand = GreedyPolicy(1), RandomPolicy(2)
    game = BigTwo(seed=4, players=2)
    same_as = {"greedy": 0, "random": 0}
    moves = 0
    while not game.is_over():
        seat = game.to_act()[0]
        observation, legal = game.observation(seat), game.legal_actions(seat)
        chosen = mixed.act(observation, legal)
        same_as["greedy"] += chosen == greedy.act(observation, legal)
        same_as["random"] += q == 0 and chosen == rand.act(observation, legal)
        moves += 1
        game.apply(seat, chosen)
    if q == 1.0:
        assert same_as["greedy"] == moves
    elif q == 0.0:
        assert same_as["random"] == moves
    else:
        assert 0 < same_as["greedy"] < moves


def test_each_cell_finds_the_field_that_holds_every_table_it_may_seat() -> None:
    """Fields of up to LADDER bots stand for the 8- and 12-bot cells; the wide field of
    50 bots (q in even steps, every one distinct) for the 50-bot cells, only where its
    library holds every table (Big Two 4p's and Fifteen Thirty-Five 6p's are played as
    drawn); Fifteen Thirty-Five's 28 tables and Big Two 4p's 70 for 8 bots, and for the
    open 12 their open fields of all 924 and 495 tables."""
    ready = _engine_results.engine_ready
    wide = _engine_results.field_of("bigtwo", 2, 50)
    assert wide is _engine_results.WIDE_FIELDS["bigtwo", 2]
    assert len(set(wide.qs)) == len(wide.qs) == _engine_results.WIDE
    assert list(wide.qs) == sorted(wide.qs) and wide.qs[0] == 0 and wide.qs[-1] == 1
    assert len(_engine_results.tables_of(wide, 50)) == 50 * 49 // 2
    assert _engine_results.field_of("bigtwo", 2, 8) is _engine_results.FIELDS["bigtwo", 2]
    assert ready("bigtwo", 2, 50) and not ready("bigtwo", 4, 49)
    assert ready("bigtwo", 4, 50)  # played as drawn (bench/_engine_fresh.py)
    assert ready("oceans11", 2, 50) and not ready("bigtwo", 2, 51)
    assert ready("fifteen35", 6, 8) and ready("fifteen35", 6, 12)
    assert ready("fifteen35", 6, 50)  # played as drawn too
    assert _engine_results.field_of("fifteen35", 6, 8) is _engine_results.FIELDS["fifteen35", 6]
    found = _engine_results.field_of("fifteen35", 6, 12)
    assert found is _engine_results.OPEN_FIELDS["fifteen35", 6]
    assert found is not None and len(_engine_results.tables_of(found, 12)) == 924
    assert ready("bigtwo", 4, 8) and ready("bigtwo", 4, 12)
    assert _engine_results.field_of("bigtwo", 4, 8) is _engine_results.FIELDS["bigtwo", 4]
    found = _engine_results.field_of("bigtwo", 4, 12)
    assert found is _engine_results.OPEN_FIELDS["bigtwo", 4]
    assert found is not None and len(_engine_results.tables_of(found, 12)) == 495
