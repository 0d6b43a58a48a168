"""Migrations 0008, 0011 and 0012 recompute every stored global rating with the per-unit update."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tournaments.models import Rating, RatingHistory, RatingRecord
from tournaments.rating.model import global_rating
from tournaments.rating.model.tournament_fit import Placing
from tournaments.rating.stored.recompute import recompute

BEFORE = [("tournaments", "0007_replays_out_of_the_match_row")]
AFTER = [("tournaments", "0008_global_rating_per_unit")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_rates_the_stored_history_per_unit() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    model = {name: old.get_model("tournaments", name) for name in ("Bot", "BotVersion", "Match")}
    bots = [model["Bot"].objects.create(game="bigtwo", name=name) for name in "ab"]
    versions = [
        model["BotVersion"].objects.create(bot=bot, number=1, content_hash=bot.name) for bot in bots
    ]
    result = {"scores": [2, 1], "places": [1, 2], "games": []}
    match = model["Match"].objects.create(
        game="bigtwo", status="done", rating_seq=1, result=result, units="12 12 21"
    )
    for index, version in enumerate(versions):
        old.get_model("tournaments", "Seat").objects.create(
            match=match, index=index, version=version, bot=version.bot
        )
        old.get_model("tournaments", "Rating").objects.create(
            bot=version.bot, game="bigtwo", elo=1516.0 - 32 * index, matches=1
        )
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    at_0008 = executor.loader.project_state(AFTER).apps  # no decisive column yet
    ids = (bots[0].pk, bots[1].pk)
    by_bot = {version.bot_id: version.pk for version in versions}
    units = [Placing(ids, p) for p in [(1, 2), (1, 2), (2, 1)]]
    expected = global_rating.rate_units({}, units, versions=by_bot)
    for rating in at_0008.get_model("tournaments", "Rating").objects.all():
        state = expected[rating.bot_id]
        assert (rating.elo, rating.deviation, rating.units) == (state.elo, state.deviation, 3)
        assert (rating.wins, rating.losses, rating.matches) == (
            (1, 0, 1) if rating.bot_id == ids[0] else (0, 1, 1)
        )
    history = at_0008.get_model("tournaments", "RatingHistory").objects
    assert sorted(history.values_list("bot_id", "after")) == sorted(
        (b, expected[b].elo) for b in ids
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())  # 0011 and 0012 recompute
    records = RatingRecord.of(ids)
    assert {r.bot_id: r.skill(records[r.bot_id]) for r in Rating.objects.all()} == expected
    assert all(s.decisive == 3 for s in expected.values())
    assert recompute().differences == {}
    assert sorted(RatingHistory.objects.values_list("bot_id", "after")) == sorted(
        (b, expected[b].elo) for b in ids
    )
