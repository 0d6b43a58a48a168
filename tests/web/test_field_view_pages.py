"""The leaderboard, the bot page and the API show the stored field view (the whole field
refitted by the field pass, tournaments.rating.stored.field_view): its rating and joint 95%
interval "as of" the pass, ordered by the rating shown; a bot no pass has seen yet shows
its own stored rating, marked "own"; before any pass, the stored ratings (the fallback)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.template.defaultfilters import floatformat
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from tests.web.conftest import Visit, make_user, played_tournament, quick_bot
from tournaments.models import Bot, FieldRating, Rating, Tournament
from tournaments.rating.model import global_rating
from tournaments.rating.stored import field_view

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_matches")]


def printed(elo: float, deviation: float, between: str = "</strong> <small>") -> str:
    """A rating and its interval as the pages print them: "1523 [1400, 1646]"."""
    low, high = global_rating.interval(elo, deviation)
    return f"{floatformat(elo, 0)}{between}[{floatformat(low, 0)}, {floatformat(high, 0)}]"


def other_lists(client: Client, shown: dict[int, tuple[float, float]]) -> None:
    """The tournament page and the owner's list of bots on the home page show the global
    rating of each bot in ``shown`` (bot id -> rating and deviation) as the board does."""
    tournament = Tournament.objects.order_by("id").first()
    assert tournament is not None
    table = client.get(reverse("web:tournament", args=[tournament.pk])).content.decode()
    client.force_login(User.objects.get(username="owner"))
    home = client.get("/").content.decode()
    for bot in Bot.objects.filter(pk__in=shown):
        elo, deviation = shown[bot.pk]
        assert printed(elo, deviation, " ") in table
        if bot.owner is not None:
            assert printed(elo, deviation, " <small>") in home


def fitted_then_a_newcomer() -> tuple[dict[int, FieldRating], Rating]:
    """Three bots rated and refitted by a field pass, then a fourth rated after it."""
    owner = make_user("owner")
    entrants = [quick_bot(owner, "bigtwo", f"b{i}", "greedy") for i in range(2)]
    entrants.append(quick_bot(None, "bigtwo", "r"))
    played_tournament(owner, "bigtwo", entrants, table_size=2, games_per_pairing=4)
    assert field_view.refresh("bigtwo") == "refitted"
    newcomer = quick_bot(None, "bigtwo", "newcomer")
    played_tournament(owner, "bigtwo", [newcomer, entrants[2]], table_size=2, seed=12)
    views = {v.rating.bot_id: v for v in FieldRating.objects.select_related("rating")}
    return views, Rating.objects.get(bot_id=newcomer.bot_id)


def test_the_board_the_bot_page_and_the_api_show_the_field_view(visit: Visit) -> None:
    views, newcomer = fitted_then_a_newcomer()
    assert len(views) == 3 and newcomer.bot_id not in views
    # The stored order is made the reverse of the field's: the page follows the field's.
    by_field = sorted(views.values(), key=lambda v: -v.elo)
    for place, view in enumerate(by_field):
        Rating.objects.filter(pk=view.rating_id).update(elo=1000.0 + 100.0 * place)
    client = Client()
    board = client.get(reverse("web:leaderboard", args=["bigtwo"])).content.decode()
    for view in views.values():
        assert printed(view.elo, view.deviation) in board
        assert printed(view.rating.elo, view.rating.deviation) not in board
    assert printed(newcomer.elo, newcomer.deviation) in board
    shown = sorted([*(v.elo for v in views.values()), newcomer.elo], reverse=True)
    listed = [float(e) for e in re.findall(r'<td class="num"><strong>(-?\d+)</strong>', board)]
    assert listed == [float(floatformat(e, 0)) for e in shown]

    api = client.get("/api/leaderboards/bigtwo/").json()["results"]
    assert [row["standing"]["elo"] for row in api] == shown
    for row in api:
        standing = row["standing"]
        if row["bot"] == newcomer.bot_id:
            assert not standing["joint"] and standing["as_of"] is None
            assert standing["deviation"] == row["deviation"] == newcomer.deviation
        else:
            view = views[row["bot"]]
            assert standing["joint"] and standing["as_of"] is not None
            assert (standing["elo"], standing["deviation"]) == (view.elo, view.deviation)
            assert standing["low"] == global_rating.interval(view.elo, view.deviation)[0]
    other_lists(Client(), {bot: (v.elo, v.deviation) for bot, v in views.items()})
    top = by_field[0]
    bot = client.get(f"/api/bots/{top.rating.bot_id}/").json()["rating"]
    assert bot["standing"]["elo"] == top.elo and bot["standing"]["joint"]

    page = visit.page
    visit.go("/leaderboard/bigtwo/")
    expect(page.locator(".note").first).to_contain_text("As of")
    expect(page.locator("table.board tbody tr .own")).to_have_count(1)
    row = page.locator("table.board tbody tr", has_text="newcomer")
    expect(row.locator(".own")).to_have_text("own")
    expect(page.locator("table.board tbody tr").first).to_contain_text(top.rating.bot.name)
    visit.audit()
    visit.go(f"/bots/{top.rating.bot_id}/")
    expect(page.locator(".field-view")).to_contain_text("fits the whole field together")
    expect(page.get_by_text(re.compile(f"global rating {floatformat(top.elo, 0)}"))).to_be_visible()
    visit.audit()


def test_before_any_pass_the_pages_show_the_stored_ratings() -> None:
    owner = make_user("owner")
    entrants = [quick_bot(owner, "bigtwo", f"b{i}", "greedy") for i in range(2)]
    played_tournament(owner, "bigtwo", entrants, table_size=2, games_per_pairing=4)
    other_lists(Client(), {r.bot_id: (r.elo, r.deviation) for r in Rating.objects.all()})
    client = Client()
    board = client.get(reverse("web:leaderboard", args=["bigtwo"])).content.decode()
    assert "whole field's joint fit has not run yet" in board and 'class="own"' not in board
    for rating in Rating.objects.all():
        assert printed(rating.elo, rating.deviation) in board
        page = client.get(reverse("web:bot", args=[rating.bot_id])).content.decode()
        assert printed(rating.elo, rating.deviation) in page and "field-view" not in page
        standing = client.get(f"/api/bots/{rating.bot_id}/").json()["rating"]["standing"]
        assert (standing["elo"], standing["joint"]) == (rating.elo, False)
