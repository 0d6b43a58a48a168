"""The field as the database holds it (tournaments.rating.stored.field_store): the ratings and
records stored for a game give the same joint view as the rating states they came from,
records of a bot's earlier version stay fixed opponents, and a bot without a rating has
no comparison."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from tournaments.models import Bot, BotVersion, Rating, RatingRecord
from tournaments.rating.model import field
from tournaments.rating.model.global_rating import Skill, rate_units
from tournaments.rating.model.tournament_fit import SCALE, Placing
from tournaments.rating.stored import field_store

pytestmark = pytest.mark.django_db

S = math.log(10.0) / SCALE


def rated_states(bots: int, games: int, seed: int) -> dict[int, Skill]:
    """Rating states (keyed 0..bots-1, records keyed likewise) after random games, bot k
    of strength 60 k Elo."""
    rng = random.Random(seed)
    skills: dict[int, Skill] = {}
    for _ in range(games):
        a, b = rng.sample(range(bots), 2)
        p = 1.0 / (1.0 + math.exp(-S * 60.0 * (a - b)))
        skills.update(rate_units(skills, [Placing((a, b), (1, 2) if rng.random() < p else (2, 1))]))
    return skills


def store(skills: dict[int, Skill]) -> tuple[dict[int, int], dict[int, BotVersion]]:
    """Each state as a bot of one rated version with its rating and records; the bot id
    of each key and each key's version."""
    bot_of, version_of = {}, {}
    for key in skills:
        bot = Bot.objects.create(game="bigtwo", name=f"field{key}")
        version_of[key] = BotVersion.objects.create(
            bot=bot, number=1, content_hash=f"h{key}", status=BotVersion.Status.ACCEPTED
        )
        BotVersion.objects.filter(pk=version_of[key].pk).update(ever_rated=True)
        bot_of[key] = bot.pk
    for key, skill in skills.items():
        row = Rating(bot_id=bot_of[key], game="bigtwo", elo=skill.elo)
        row.set_skill(skill)
        row.save()
        RatingRecord.objects.bulk_create(
            RatingRecord(
                bot_id=bot_of[key],
                opponent=version_of[other],
                results=r.results,
                score=r.score,
                seen=r.seen,
            )
            for other, r in skill.records.items()
        )
    return bot_of, version_of


def test_the_stored_field_is_the_field_of_the_states() -> None:
    skills = rated_states(5, 120, 1)
    bot_of, _ = store(skills)
    expected = field.field_of(skills).difference(4, 0)
    found = field_store.compare("bigtwo", bot_of[4], bot_of[0])
    assert found is not None
    assert found.estimate == pytest.approx(expected.estimate)
    assert found.deviation == pytest.approx(expected.deviation)
    assert found.probability == pytest.approx(expected.probability)


def test_records_of_an_earlier_version_stay_fixed_opponents() -> None:
    skills = rated_states(4, 80, 2)
    bot_of, version_of = store(skills)
    newer = BotVersion.objects.create(
        bot_id=bot_of[3], number=2, content_hash="h3b", status=BotVersion.Status.ACCEPTED
    )
    BotVersion.objects.filter(pk=newer.pk).update(ever_rated=True)
    # Bot 3's rating now follows version 2: the others' records of version 1 no longer
    # link to it, so the field is that of the states with those records fixed.
    keys = {version_of[k].pk: bot_of[k] for k in (0, 1, 2)} | {newer.pk: bot_of[3]}
    assert field_store.current_versions(list(bot_of.values())) == keys
    by_bot = {bot_of[k]: s for k, s in skills.items()}
    renamed = {
        bot: replace(s, records={version_of[o].pk: r for o, r in s.records.items()})
        for bot, s in by_bot.items()
    }
    expected = field.field_of(renamed, keys).difference(bot_of[3], bot_of[0])
    found = field_store.compare("bigtwo", bot_of[3], bot_of[0])
    assert found is not None
    assert found.deviation == pytest.approx(expected.deviation)
    linked = field.field_of(renamed, keys | {version_of[3].pk: bot_of[3]})
    assert found.deviation != pytest.approx(linked.difference(bot_of[3], bot_of[0]).deviation)


def test_a_bot_without_a_rating_has_no_comparison() -> None:
    skills = rated_states(3, 30, 3)
    bot_of, _ = store(skills)
    newcomer = Bot.objects.create(game="bigtwo", name="newcomer")
    assert field_store.compare("bigtwo", bot_of[0], newcomer.pk) is None


def test_a_page_fits_only_the_bots_it_shows_the_rest_held_where_last_met() -> None:
    skills = rated_states(6, 150, 4)
    bot_of, version_of = store(skills)
    shown = [bot_of[k] for k in (0, 2, 5)]
    found = field_store.game_field("bigtwo", bots=shown)
    assert set(found.elo) == set(shown)
    # The same as the field of those three states alone, every other opponent fixed.
    by_bot = {
        bot_of[k]: replace(s, records={version_of[o].pk: r for o, r in s.records.items()})
        for k, s in skills.items()
        if bot_of[k] in shown
    }
    keys = {version_of[k].pk: bot_of[k] for k in (0, 2, 5)}
    expected = field.field_of(by_bot, keys).difference(shown[2], shown[0])
    assert found.difference(shown[2], shown[0]).deviation == pytest.approx(expected.deviation)
    whole = field_store.game_field("bigtwo")
    assert found.difference(shown[2], shown[0]).deviation != pytest.approx(
        whole.difference(shown[2], shown[0]).deviation
    )


def test_the_records_read_as_arrays_are_the_states_records_with_their_tempering() -> None:
    """Issue 47: the pass reads the records by one binary COPY into arrays
    (``field_store.game_records``); they are the rating states' own records, linked to the
    same bots, each bot's stored tempering the one ``field._tempering`` computes."""
    skills = rated_states(7, 120, 6)
    bot_of, version_of = store(skills)
    stored, _ = field_store.game_records("bigtwo")
    by_bot = {
        bot_of[k]: replace(s, records={version_of[o].pk: r for o, r in s.records.items()})
        for k, s in skills.items()
    }
    keys = {version_of[k].pk: bot_of[k] for k in skills}
    expected = field.stored_of(by_bot, keys)
    assert stored.keys == sorted(by_bot) and len(stored.bot) == len(expected.bot) == 42

    def records(found: field.Stored[int]) -> set[tuple[int, int, float, float, float]]:
        return {
            (found.keys[b], found.keys[o] if o >= 0 else -1, r, s, seen)
            for b, o, r, s, seen in zip(
                found.bot.tolist(),
                found.other.tolist(),
                found.results.tolist(),
                found.score.tolist(),
                found.seen.tolist(),
                strict=True,
            )
        }

    assert records(stored) == records(expected)
    for i, key in enumerate(stored.keys):
        assert stored.tempering[i] == pytest.approx(field._tempering(by_bot[key]))
