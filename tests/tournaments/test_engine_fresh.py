"""Issue 47: real games of a field too wide for a library, played as drawn
(bench/_engine_fresh.py).

A tiny wide field (5 bots of mixed policies at Big Two 4p, a pool of 3 deals a table, a
truth of 4 random tables) in a temporary cache: a draw plays its deal once, in the seat
order asked, and keeps it, so the same draws in another process re-read it and play
nothing; the truth plays its own tables and fits every bot.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench import _engine_fresh, _engine_results
from bench._engine_fresh import Fresh, Wide
from bench._engine_results import Field, even_steps
from tournaments.rating.model.units import match_units

WIDE = Wide(Field("bigtwo", 4, deals=3, qs=even_steps(5)), truth_tables=4)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(_engine_fresh, "CACHE", tmp_path)
    return tmp_path


def test_a_draw_plays_its_deal_once_in_the_order_asked_and_keeps_it(cache: Path) -> None:
    first = Fresh(WIDE, bots=5)
    asked = [(3, 0, 4, 1), (0, 1, 3, 4), (4, 3, 1, 0), (0, 1, 2, 3)]
    drawn = [first.draw(t, random.Random(7)) for t in asked]
    # the first three are the same table at the same j: one deal played, read in each order
    assert first.played == 2
    stored = first.deal((0, 1, 3, 4), random.Random(7).randrange(3))
    for table, result in zip(asked[:3], drawn[:3], strict=True):
        order = [(0, 1, 3, 4).index(bot) for bot in table]
        assert result["places"] == [stored["places"][i] for i in order]
        (unit,) = match_units(4, result, duplicate=True, deals=1)
        assert len(result["games"]) == 4  # four rotations of one deal
        assert list(unit) == [match_units(4, stored, duplicate=True, deals=1)[0][i] for i in order]
    first.db.commit()

    again = Fresh(WIDE, bots=5)  # another process: the same draws re-read, none played
    assert [again.draw(t, random.Random(7)) for t in asked] == drawn
    assert again.played == 0


def test_the_truth_plays_its_random_tables_and_fits_every_bot(cache: Path) -> None:
    found = Fresh(WIDE, bots=5)
    assert found.wide.truth_tables == len(found.sample()) == 4
    assert sorted(found.truth()) == [0, 1, 2, 3, 4]
    assert len(found.units()) == 4
    assert Fresh(WIDE, bots=5).sample() == found.sample()  # fixed: a re-run re-reads it


def test_only_the_wide_4_and_6_seat_fields_are_played_as_drawn() -> None:
    """Big Two 4p and Fifteen Thirty-Five 6p of 50: no library holds their tables; the
    fields of 8 and 12 and the two-seat fields of 50 keep theirs."""
    for game, seats in (("bigtwo", 4), ("fifteen35", 6)):
        found = _engine_fresh.wide_of(game, seats, 50)
        assert found is _engine_fresh.FRESH_FIELDS[game, seats]
        assert len(set(found.field.qs)) == 50 and found.field.seats == seats
        assert _engine_fresh.wide_of(game, seats, 8) is None
        assert _engine_fresh.wide_of(game, seats, 12) is None
        assert _engine_results.field_of(game, seats, 50) is None
    assert _engine_fresh.wide_of("bigtwo", 2, 50) is None
