"""The stored field view (tournaments.rating.stored.field_view): the beat task refits each game's
whole field and stores every bot's rating there and its joint deviation, skips a game with
nothing rated since its last pass, runs one pass of a game at a time, and runs under beat
on a real worker."""

from __future__ import annotations

import dataclasses
import importlib
import random
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from tests.tournaments.conftest import Workers, wait_for
from tests.tournaments.test_field_store import rated_states, store
from tournaments.models import FieldPass, FieldRating, Ladder, Match, Seat
from tournaments.play import tasks
from tournaments.rating.model import field_bias, field_dispersion
from tournaments.rating.model.skill import FIELD_PRIOR_DEVIATION
from tournaments.rating.stored import field_store, field_view, match_rating

pytestmark = pytest.mark.django_db


def views() -> dict[int, FieldRating]:
    return {v.rating.bot_id: v for v in FieldRating.objects.select_related("rating")}


def test_a_pass_stores_each_bots_rating_and_joint_deviation_in_the_whole_field() -> None:
    bot_of, _ = store(rated_states(8, 160, 5))
    done = tasks.refit_fields()
    assert done["bigtwo"] == "refitted"
    assert {game: state for game, state in done.items() if game != "bigtwo"} == dict.fromkeys(
        set(done) - {"bigtwo"}, "unchanged"
    )  # games with no rated bot: nothing to fit
    whole = field_store.game_field("bigtwo")
    stored = views()
    assert set(stored) == set(bot_of.values())
    for bot, view in stored.items():
        assert view.elo == pytest.approx(whole.elo[bot])
        assert view.deviation == pytest.approx(whole.deviation(bot), rel=1e-6)
    last = FieldPass.objects.get(game="bigtwo")
    assert (last.bots, last.matches, last.running_since) == (8, 0, None)
    assert {v.fitted_at for v in stored.values()} == {last.ran_at}


def test_nothing_rated_since_the_last_pass_is_skipped_and_a_rated_match_brings_the_next() -> None:
    bot_of, version_of = store(rated_states(6, 120, 6))
    assert field_view.refresh("bigtwo") == "refitted"
    before = views()
    assert field_view.refresh("bigtwo") == "unchanged"
    assert {b: v.fitted_at for b, v in views().items()} == {
        b: v.fitted_at for b, v in before.items()
    }
    match = Match.objects.create(game="bigtwo", status=Match.Status.DONE)
    with transaction.atomic():
        match_rating.rate_match(match, [version_of[0], version_of[5]], [1, 2])
    assert field_view.refresh("bigtwo") == "refitted"
    after = views()
    assert after[bot_of[0]].fitted_at > before[bot_of[0]].fitted_at
    assert after[bot_of[0]].elo != pytest.approx(before[bot_of[0]].elo)
    assert FieldPass.objects.get(game="bigtwo").matches == 2


def play_matches(version_of: dict[int, Any], count: int, seed: int, seats: int = 4) -> list[tuple]:
    """``count`` rated matches of ``seats`` stored as the service stores them (result,
    seats, rating order); each one's bot ids and places."""
    rng = random.Random(seed)
    played = []
    for _ in range(count):
        table = rng.sample(sorted(version_of), seats)
        places = rng.sample(range(1, seats + 1), seats)
        match = Match.objects.create(
            game="bigtwo", status=Match.Status.DONE, result={"places": places}
        )
        versions = [version_of[k] for k in table]
        for index, version in enumerate(versions):
            Seat.objects.create(match=match, index=index, version=version)
        with transaction.atomic():
            match_rating.rate_match(match, versions, places)
            match.save()  # as the lease stores it: with its rating order
        played.append((tuple(v.bot_id for v in versions), tuple(places)))
    return played


def test_a_pass_measures_the_dispersion_of_the_games_recent_units() -> None:
    bot_of, version_of = store(rated_states(10, 80, 8))
    played = play_matches(version_of, 20, 9)
    recent = field_store.recent_units("bigtwo")
    assert [(u.seats, u.places) for u in recent.units] == played[::-1]  # the latest first
    assert recent.chosen == 0.0  # no ladder's match among them
    assert len(field_store.recent_units("bigtwo", matches=5).units) == 5
    plain = field_store.game_field("bigtwo")  # before any pass: the stored dispersions
    assert field_view.refresh("bigtwo") == "refitted"
    measured = field_store.game_field("bigtwo", recent=recent)
    assert measured.dispersion is not None
    for bot, view in views().items():
        assert view.elo == pytest.approx(measured.elo[bot])
        assert view.deviation == pytest.approx(measured.deviation(bot), rel=1e-6)
        assert view.dispersion == pytest.approx(measured.dispersion[bot])
    # Pages that fit on the spot (head-to-head) read the pass's dispersions.
    again = field_store.game_field("bigtwo")
    assert again.elo == pytest.approx(measured.elo, abs=1e-3)
    assert again.deviation(bot_of[0]) == pytest.approx(measured.deviation(bot_of[0]), rel=1e-4)
    # 80 bot-units measured: the view is not the stored dispersions' one.
    assert field_dispersion.MIN_UNITS <= 20 * 4
    assert any(
        measured.deviation(b) != pytest.approx(plain.deviation(b), rel=1e-3)
        for b in bot_of.values()
    )


def test_a_pass_under_way_is_not_run_twice_and_a_dead_ones_claim_is_taken_over() -> None:
    store(rated_states(4, 60, 7))
    FieldPass.objects.create(game="bigtwo", running_since=timezone.now())
    assert field_view.refresh("bigtwo") == "running"
    assert not FieldRating.objects.exists()
    dead = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 1)
    FieldPass.objects.filter(game="bigtwo").update(running_since=dead)
    assert field_view.refresh("bigtwo") == "refitted"
    assert FieldRating.objects.count() == 4
    assert FieldPass.objects.get(game="bigtwo").running_since is None


def test_beat_names_the_task_and_sends_it_to_the_batch_queue() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["field-view"]
    assert entry["task"] == tasks.refit_fields.name == "tournaments.tasks.refit_fields"
    assert entry["options"]["queue"] == "tournaments"
    assert entry["schedule"] == settings.FIELD_PASS_SECONDS > 0


@pytest.mark.django_db(transaction=True)
def test_beat_runs_the_pass_on_a_real_worker(workers: Workers) -> None:
    bot_of, _ = store(rated_states(5, 80, 8))
    workers.env["FIELD_PASS_SECONDS"] = "1"
    workers.start_with_reaper("fields")
    wait_for(lambda: set(views()) == set(bot_of.values()), 90, "beat's field pass")
    assert FieldPass.objects.get(game="bigtwo").ran_at is not None


def test_an_operator_deleting_a_games_pass_has_the_next_one_refit_it(admin_client: Any) -> None:
    """After ``recompute_ratings --write`` or a new field model nothing new is rated; the
    admin's delete of the game's pass row brings a pass all the same."""
    store(rated_states(4, 60, 9))
    assert field_view.refresh("bigtwo") == "refitted"
    assert field_view.refresh("bigtwo") == "unchanged"
    listed = admin_client.get("/admin/tournaments/fieldpass/")
    assert listed.status_code == 200 and "bigtwo" in listed.content.decode()
    last = FieldPass.objects.get(game="bigtwo")
    answer = admin_client.post(f"/admin/tournaments/fieldpass/{last.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302 and not FieldPass.objects.exists()
    assert field_view.refresh("bigtwo") == "refitted"


def test_a_pass_counting_the_spread_stores_it_and_the_pages_comparisons_count_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``field_dispersion.COUNT_SPREAD`` (on since issue 47's one rating): the pass stores
    the field's spread, which the pages' comparisons count; off (an experiment now), it
    stores none."""
    store(rated_states(8, 160, 5))
    monkeypatch.setattr(field_dispersion, "COUNT_SPREAD", False)
    assert field_view.refresh("bigtwo") == "refitted"
    assert FieldPass.objects.get(game="bigtwo").spread is None
    monkeypatch.setattr(field_dispersion, "COUNT_SPREAD", True)
    FieldPass.objects.filter(game="bigtwo").update(bots=0, matches=0)
    assert field_view.refresh("bigtwo") == "refitted"
    spread = FieldPass.objects.get(game="bigtwo").spread
    assert spread is not None and 0.0 < spread < FIELD_PRIOR_DEVIATION
    whole = field_store.game_field("bigtwo")
    assert whole.spread == spread
    for bot, view in views().items():
        assert view.deviation == pytest.approx(whole.deviation(bot), rel=1e-6)
    a, b = sorted(whole.elo)[:2]
    compared = field_store.compare("bigtwo", a, b)
    at_the_prior = dataclasses.replace(whole, spread=None).difference(a, b)
    assert compared is not None and compared.deviation < at_the_prior.deviation


def test_the_new_field_prior_s_migration_has_every_game_refitted() -> None:
    """Migration 0031 (the pass's prior 500, not 350): nothing new is rated, yet each game
    with a stored pass is refitted at the next beat, so no view of the old prior stays."""
    from django.apps import apps

    migration = importlib.import_module("tournaments.migrations.0031_field_pass_prior_refit")
    store(rated_states(4, 60, 10))
    assert field_view.refresh("bigtwo") == "refitted"
    assert field_view.refresh("bigtwo") == "unchanged"
    before = views()
    migration.forget_what_the_passes_saw(apps, None)
    assert field_view.refresh("bigtwo") == "refitted"
    assert all(v.fitted_at > before[b].fitted_at for b, v in views().items())
    assert field_view.refresh("bigtwo") == "unchanged"


def test_a_page_fitting_on_the_spot_reduces_the_bias_as_the_pass_did() -> None:
    """Issue 47's one rating: the pass's fit is Firth's, its pseudo-results scaled by the
    pairs' own dispersion (measured over the recent units: 1 less the draws' share, so 1
    where no pair drew, as here) in the fit and not in its posterior; it stores those
    scales, and a page that fits on the spot
    (``field_store.game_field``: head-to-head, comparisons) fits as it did, so it shows
    the figures the board shows. Without them it would show the plain fit's, wider apart."""
    _, version_of = store(rated_states(10, 80, 8))
    play_matches(version_of, 20, 9)
    assert field_dispersion.REDUCE_BIAS and field_dispersion.FIRTH_SCALES == ("pair", "one")
    assert field_view.refresh("bigtwo") == "refitted"
    last = FieldPass.objects.get(game="bigtwo")
    assert last.bias_scale == pytest.approx(1.0) and last.posterior_scale == 1.0
    on_the_spot = field_store.game_field("bigtwo")
    stored = views()
    for bot, view in stored.items():
        assert on_the_spot.elo[bot] == pytest.approx(view.elo, abs=1e-3)
        assert on_the_spot.deviation(bot) == pytest.approx(view.deviation, rel=1e-3)
    FieldPass.objects.filter(game="bigtwo").update(bias_scale=None, posterior_scale=None)
    plain = field_store.game_field("bigtwo")
    centre = sum(plain.elo.values()) / len(plain.elo)
    assert sum(abs(e - centre) for e in plain.elo.values()) > sum(
        abs(v.elo - centre) for v in stored.values()
    )  # Firth pulls the ratings in toward the centre


def test_a_small_fields_pass_weighs_in_firths_noise_unless_the_ladder_seated_it() -> None:
    """Ten bots, forty two-seat matches no matchmaker seated: the pass's deviations weigh
    in the penalty-fixed noise by the small field's whole share
    (``field_bias.sandwich_share``), stored for the pages, whose fit on the spot then reads
    the board's deviations; with half of the recent matches the ladder's, half that share;
    all of them, none. Tables of four take none."""
    _, version_of = store(rated_states(10, 80, 8))
    play_matches(version_of, 40, 9, seats=2)
    assert field_view.refresh("bigtwo") == "refitted"
    assert FieldPass.objects.get(game="bigtwo").sandwich == field_bias.SANDWICH_SMALL > 0.0
    on_the_spot = field_store.game_field("bigtwo")
    for bot, view in views().items():
        assert on_the_spot.deviation(bot) == pytest.approx(view.deviation, rel=1e-3)
    ladder = Ladder.objects.create(game="bigtwo")
    matches = Match.objects.filter(game="bigtwo").order_by("-rating_seq")
    Match.objects.filter(pk__in=list(matches.values_list("pk", flat=True)[:20])).update(
        ladder=ladder
    )
    assert field_store.recent_units("bigtwo").chosen == pytest.approx(0.5)
    FieldPass.objects.filter(game="bigtwo").update(bots=0, matches=0)
    assert field_view.refresh("bigtwo") == "refitted"
    half = FieldPass.objects.get(game="bigtwo").sandwich
    assert half == pytest.approx(field_bias.SANDWICH_SMALL / 2)
    Match.objects.filter(game="bigtwo").update(ladder=ladder)
    FieldPass.objects.filter(game="bigtwo").update(bots=0, matches=0)
    assert field_view.refresh("bigtwo") == "refitted"
    assert FieldPass.objects.get(game="bigtwo").sandwich == 0.0
    Match.objects.filter(game="bigtwo").update(ladder=None)
    play_matches(version_of, 60, 10)  # the recent units now mostly of four seats
    assert field_view.refresh("bigtwo") == "refitted"
    assert FieldPass.objects.get(game="bigtwo").sandwich < field_bias.SANDWICH_SMALL / 2


def test_the_small_field_share_s_migration_has_every_game_refitted() -> None:
    """Migration 0034: each game with a stored pass is refitted at the next beat, which
    then stores the share of the penalty-fixed noise in its deviations."""
    from django.apps import apps

    migration = importlib.import_module("tournaments.migrations.0034_small_field_sandwich")
    store(rated_states(4, 60, 10))
    assert field_view.refresh("bigtwo") == "refitted"
    FieldPass.objects.filter(game="bigtwo").update(sandwich=None)
    assert field_view.refresh("bigtwo") == "unchanged"
    migration.forget_what_the_passes_saw(apps, None)
    assert field_view.refresh("bigtwo") == "refitted"
    assert FieldPass.objects.get(game="bigtwo").sandwich is not None


def test_the_one_rating_s_migration_has_every_game_refitted() -> None:
    """Migration 0033 (issue 47's one rating switched on): nothing new is rated, yet each
    game with a stored pass is refitted at the next beat under the new settings, and the
    pass then stores its bias reduction's scales."""
    from django.apps import apps

    migration = importlib.import_module("tournaments.migrations.0033_one_rating_refit")
    store(rated_states(4, 60, 10))
    assert field_view.refresh("bigtwo") == "refitted"
    FieldPass.objects.filter(game="bigtwo").update(bias_scale=None, posterior_scale=None)
    assert field_view.refresh("bigtwo") == "unchanged"
    migration.forget_what_the_passes_saw(apps, None)
    assert field_view.refresh("bigtwo") == "refitted"
    assert FieldPass.objects.get(game="bigtwo").bias_scale is not None
    assert field_view.refresh("bigtwo") == "unchanged"
