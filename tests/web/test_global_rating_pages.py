"""The leaderboard, the bot page and the API show the global rating's interval from its
stored deviation (tournaments.rating.model.global_rating), and say when it is provisional."""

from __future__ import annotations

import pytest
from django.template.defaultfilters import floatformat
from django.test import Client
from django.urls import reverse

from tests.web.conftest import make_user, played_tournament, quick_bot
from tournaments.models import Rating, Tournament
from tournaments.rating.model import global_rating
from tournaments.rating.model.tournament_fit import Z95

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_matches")]


def shown(rating: Rating) -> str:
    """The interval as the pages print it."""
    low, high = global_rating.interval(rating.elo, rating.deviation)
    return f"[{floatformat(low, 0)}, {floatformat(high, 0)}]"


def rated_field() -> list[Rating]:
    owner = make_user("owner")
    entrants = [quick_bot(owner, "bigtwo", f"b{i}", "greedy") for i in range(2)]
    entrants.append(quick_bot(None, "bigtwo", "r"))
    played_tournament(owner, "bigtwo", entrants, table_size=2, games_per_pairing=4)
    return list(Rating.objects.select_related("bot").order_by("-elo"))


def test_pages_and_api_show_the_interval_of_the_stored_deviation() -> None:
    rows = rated_field()
    assert {r.units for r in rows} == {8} and all(r.provisional for r in rows)
    assert all(0 < r.deviation < global_rating.START_DEVIATION for r in rows)
    # A settled bot: its interval comes from its deviation alone, not from a count.
    settled = rows[0]
    Rating.objects.filter(pk=settled.pk).update(elo=1600.0, deviation=40.0, units=400)
    settled.refresh_from_db()
    assert not settled.provisional
    client = Client()
    board = client.get(reverse("web:leaderboard", args=["bigtwo"])).content.decode()
    assert "[1522, 1678]" in board
    assert all(shown(r) in board for r in rows[1:]) and "provisional" in board
    page = client.get(reverse("web:bot", args=[rows[1].bot_id])).content.decode()
    assert shown(rows[1]) in page and "provisional" in page and "8 games or deals" in page
    page = client.get(reverse("web:bot", args=[settled.bot_id])).content.decode()
    assert "[1522, 1678]" in page and "provisional" not in page.split("<h2>")[0]
    api = client.get("/api/leaderboards/bigtwo/").json()["results"]
    by_bot = {row["bot"]: row for row in api}
    for rating in [settled, *rows[1:]]:
        row = by_bot[rating.bot_id]
        low, high = global_rating.interval(rating.elo, rating.deviation)
        assert (row["elo"], row["deviation"], row["units"]) == (
            rating.elo,
            rating.deviation,
            rating.units,
        )
        assert (row["low"], row["high"], row["provisional"]) == (low, high, rating.provisional)
    bot = client.get(f"/api/bots/{settled.bot_id}/").json()["rating"]
    assert bot["low"] == pytest.approx(1600 - Z95 * 40) and not bot["provisional"]
    assert bot["high"] == pytest.approx(1600 + Z95 * 40) and bot["units"] == 400


def test_an_interval_stays_within_the_scale() -> None:
    rows = rated_field()
    Rating.objects.filter(pk=rows[0].pk).update(elo=2950.0, deviation=100.0)
    board = Client().get(reverse("web:leaderboard", args=["bigtwo"])).content.decode()
    assert "[2754, 3000]" in board


def test_the_tournament_page_shows_each_bots_global_rating_beside_the_fit() -> None:
    rows = rated_field()
    tournament = Tournament.objects.get()
    page = Client().get(reverse("web:tournament", args=[tournament.pk])).content.decode()
    for rating in rows:
        assert f"{floatformat(rating.elo, 0)} {shown(rating)}" in page
    assert "Global rating (95%)" in page
