"""Leaderboards and bot pages read stored rows: the record kept with each result equals
the one counted from the history, and charts sample a long history evenly."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.web.conftest import make_user, played_tournament, quick_bot
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.models import Bot, Match, Rating, RatingHistory
from tournaments.rating.model import tournament_fit
from tournaments.rating.stored.recompute import recompute_and_store
from tournaments.web import bot_views, stats, tournament_views

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_matches")]


def counted_records() -> dict[int, tuple[int, int, int]]:
    """(wins, draws, losses) per bot id, counted from every rated match's places."""
    table: dict[int, list[int]] = {}
    for match in Match.objects.filter(rating_seq__isnull=False).prefetch_related("seats"):
        bots = [seat.bot_id for seat in match.seats.all()]
        for a, b, score in tournament_fit.pairwise(bots, (match.result or {})["places"]):
            for bot_id, mine in ((a, score), (b, 1.0 - score)):
                row = table.setdefault(bot_id, [0, 0, 0])
                row[0 if mine == 1.0 else 2 if mine == 0.0 else 1] += 1
    return {bot_id: (w, d, lost) for bot_id, (w, d, lost) in table.items()}


def stored_records() -> dict[int, tuple[int, int, int]]:
    return {r.bot_id: (r.wins, r.draws, r.losses) for r in Rating.objects.all()}


def test_the_stored_record_and_history_numbers_match_the_history() -> None:
    owner = make_user("owner")
    entrants = [quick_bot(owner, "fifteen35", f"b{i}", "greedy") for i in range(3)]
    played_tournament(
        owner, "fifteen35", [*entrants, quick_bot(None, "fifteen35", "r")], table_size=3
    )
    counted = counted_records()
    assert stored_records() == counted and sum(sum(r) for r in counted.values()) > 0
    for rating in Rating.objects.all():
        numbers = RatingHistory.objects.filter(bot_id=rating.bot_id).order_by("id")
        assert list(numbers.values_list("seq", flat=True)) == list(range(1, rating.matches + 1))
    before = list(RatingHistory.objects.order_by("id").values_list("bot_id", "match_id", "seq"))
    recompute_and_store()
    assert stored_records() == counted
    after = RatingHistory.objects.order_by("match__rating_seq", "match_id", "bot_id")
    assert sorted(after.values_list("bot_id", "match_id", "seq")) == sorted(before)


def test_a_long_history_is_sampled_evenly_for_the_chart() -> None:
    assert stats.sample_numbers(3, 200) == [1, 2, 3]
    sampled = stats.sample_numbers(13_829, 200)
    assert len(sampled) == 200 and sampled[0] == 1 and sampled[-1] == 13_829
    owner = make_user("owner")
    version = quick_bot(owner, "bigtwo", "veteran")
    played_tournament(owner, "bigtwo", [version, quick_bot(None, "bigtwo", "r")], table_size=2)
    bot = Bot.objects.select_related("rating").get(pk=version.bot_id)
    # A long history (the chart reads only each row's number, before and after).
    matches = Match.objects.bulk_create(Match(game="bigtwo") for _ in range(1000))
    Rating.objects.filter(bot=bot).update(matches=1000)
    RatingHistory.objects.filter(bot=bot).delete()
    RatingHistory.objects.bulk_create(
        RatingHistory(bot=bot, match=m, game="bigtwo", seq=n, before=n, after=n + 1)
        for n, m in enumerate(matches, start=1)
    )
    bot.refresh_from_db()
    samples = bot_views.rating_samples(Bot.objects.select_related("rating").get(pk=bot.pk))
    assert len(samples) == bot_views.CHART_POINTS + 1
    assert samples[0] == 1 and samples[-1] == 1001 and samples == sorted(samples)
    page = Client().get(reverse("web:bot", args=[bot.pk]))
    assert page.status_code == 200 and b"from 1 to 1001" in page.content


def test_web_lists_go_by_key_and_deep_pages_cost_what_the_first_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tournament_views, "TOURNAMENTS_PER_PAGE", 2)
    owner = make_user("owner")
    entrants = [quick_bot(owner, "bigtwo", f"b{i}") for i in range(2)]
    made = [
        competition_actions.create_tournament(
            owner, f"cup {i}", "bigtwo", entrants, table_size=2
        ).pk
        for i in range(5)
    ]
    client, seen, costs = Client(), [], set()
    url: str | None = reverse("web:tournaments")
    while url:
        with CaptureQueriesContext(connection) as captured:
            page = client.get(url)
        costs.add(len(captured))
        seen += [t.pk for t in page.context["page"]]
        older = page.context["page"].older
        url = None if older is None else reverse("web:tournaments") + f"?after={older}"
    assert seen == made[::-1] and len(costs) == 1
    back = client.get(reverse("web:tournaments") + f"?before={made[0]}").context["page"]
    assert [t.pk for t in back] == made[2:0:-1] and back.newer == made[2]
    assert client.get(reverse("web:tournaments") + "?after=junk").status_code == 400  # issue 31


def test_the_leaderboard_trend_is_each_bots_last_ten_ratings() -> None:
    owner = make_user("owner")
    long_bot = bot_actions.create_bot(owner, "oceans11", "veteran")
    short_bot = bot_actions.create_bot(owner, "oceans11", "newcomer")
    matches = Match.objects.bulk_create(Match(game="oceans11") for _ in range(25))
    for bot, count, step in ((long_bot, 25, 2.0), (short_bot, 3, -1.5)):
        RatingHistory.objects.bulk_create(
            RatingHistory(
                bot=bot,
                match=m,
                game="oceans11",
                seq=n,
                before=1500 + step * (n - 1),
                after=1500 + step * n,
            )
            for n, m in enumerate(matches[:count], start=1)
        )
        Rating.objects.create(bot=bot, game="oceans11", elo=1500 + step * count, matches=count)
    found = stats.trends({long_bot.pk: 25, short_bot.pk: 3, 10**6: 0})
    assert found[long_bot.pk].points == [1500 + 2.0 * n for n in range(15, 26)]
    assert found[short_bot.pk].points == [1500, 1498.5, 1497, 1495.5]
    assert found[long_bot.pk].change == 20 and 10**6 not in found
    page = Client().get(reverse("web:leaderboard", args=["oceans11"])).content.decode()
    first, second = page.index("veteran"), page.index("newcomer")
    assert first < second  # 1550 before 1495.5
    assert ">1550</strong>" in page and ">1496</strong>" in page  # rounded half up
    assert 'class="up">+20<' in page and 'class="down">-5<' in page  # -4.5, half away from zero
    assert f'href="{reverse("web:bot", args=[long_bot.pk])}"' in page
