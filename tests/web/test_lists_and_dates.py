"""Long lists go by "more" pages (a leaderboard past its first rows, a bot's matches past
the recent ones), each page one index range; lists say dates with their time zone, games by
their names, and can be filtered."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from playwright.sync_api import expect

from tests.web.conftest import Visit, log_in, make_user, played_tournament, quick_bot
from tournaments.competitions import competition_actions
from tournaments.models import Match, Rating, Seat, Tournament
from tournaments.web import board_views, bot_views, tournament_views

pytestmark = pytest.mark.django_db(transaction=True)
DATE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d UTC$")


def rated_bots(count: int, elo_of: object = None) -> list[str]:
    """``count`` rated Big Two bots, best first (the 3rd and 4th tied, to test the order)."""
    owner = make_user("rater")
    names = []
    for i in range(count):
        bot = quick_bot(owner, "bigtwo", f"rated-{i:02d}").bot
        elo = 1600 - 10 * i if i != 3 else 1580  # rated-02 and rated-03 tie across pages
        Rating.objects.create(bot=bot, game="bigtwo", elo=elo, matches=3, wins=2, losses=1)
        names.append(bot.name)
    return names


def test_the_leaderboard_shows_more_rows_page_by_page_in_order(
    visit: Visit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_views, "LEADERBOARD_ROWS", 3)
    names = rated_bots(8)
    page = visit.page
    visit.go("/leaderboard/bigtwo/")
    seen: list[str] = []
    for first_place in (1, 4, 7):
        rows = page.locator("table.board tbody tr")
        expect(rows.first.locator("td").first).to_have_text(str(first_place))
        seen += [
            rows.nth(i).locator("td").nth(1).locator("a").inner_text() for i in range(rows.count())
        ]
        more = page.get_by_role("link", name=re.compile("^More"))
        if first_place == 7:
            expect(more).to_have_count(0)
            break
        expect(more).to_have_text(f"More: from place {first_place + 3} ›")
        visit.audit()
        more.click()
    assert seen == names
    expect(page).to_have_title(re.compile("Big Two leaderboard from place 7"))
    visit.check("leaderboard-last-page")
    page.get_by_role("link", name="‹ top").click()
    expect(page.locator("table.board tbody tr").first.locator("td").first).to_have_text("1")
    visit.audit()


def test_a_deep_leaderboard_page_costs_the_queries_of_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(board_views, "LEADERBOARD_ROWS", 2)
    rated_bots(7)
    client, costs, url = Client(), set(), "/leaderboard/bigtwo/"
    for _ in range(3):
        with CaptureQueriesContext(connection) as captured:
            answer = client.get(url)
        costs.add(len(captured))
        url = "/leaderboard/bigtwo/?after={after}&elo={elo}&place={place}".format(
            **answer.context["more"]
        )
    assert len(costs) == 1, costs
    refused = client.get("/leaderboard/bigtwo/?after=1&elo=nan&place=-1")  # issue 31: a 400
    assert refused.status_code == 400 and b"place" in refused.content


def finished_matches(count: int) -> tuple[int, list[int]]:
    """A bot with ``count`` finished Big Two matches (made as stored, not played)."""
    owner = make_user("ada")
    mine, rival = quick_bot(owner, "bigtwo", "ada-bot"), quick_bot(None, "bigtwo", "rival")
    ids = []
    for number in range(count):
        match = Match.objects.create(
            game="bigtwo", number=number, status=Match.Status.DONE,
            started_at=timezone.now(), finished_at=timezone.now(), result={"places": [1, 2]},
        )  # fmt: skip
        Seat.objects.bulk_create([Seat(match=match, index=0, version=mine),
                                  Seat(match=match, index=1, version=rival)])  # fmt: skip
        ids.append(match.pk)
    return mine.bot_id, ids


def test_a_bots_page_lists_its_matches_twenty_at_a_time_with_dates(visit: Visit) -> None:
    bot_id, _ = finished_matches(bot_views.RECENT_MATCHES + 5)
    page = visit.page
    visit.go(f"/bots/{bot_id}/")
    expect(page).to_have_title(re.compile("^ada-bot, a Big Two bot ·"))
    rows = page.locator("table.matches tbody tr")
    expect(rows).to_have_count(bot_views.RECENT_MATCHES)
    # A match of no tournament, ladder or duel is a quick match, with no number of its
    # own (it showed its stored one plus 1, "#25", except the first: no "#1").
    expect(rows.first.locator("td").first).to_have_text("quick match")
    expect(rows.first.locator("time")).to_have_text(DATE)
    versions = page.locator("h2:text-is('Versions') + .scroll table")
    expect(versions.locator("time").first).to_have_text(DATE)
    visit.check("bot-page")
    page.get_by_role("link", name="More matches ›").click()
    expect(page.get_by_role("heading", name="Earlier matches")).to_be_visible()
    expect(rows).to_have_count(5)
    expect(rows.locator("td:first-child", has_text="#")).to_have_count(0)
    expect(page.get_by_role("link", name="More matches ›")).to_have_count(0)
    visit.audit()
    page.get_by_role("link", name="‹ newest").click()
    expect(rows).to_have_count(bot_views.RECENT_MATCHES)
    visit.audit()


def test_a_bots_deep_match_page_costs_the_queries_of_the_first() -> None:
    bot_id, ids = finished_matches(bot_views.RECENT_MATCHES * 2 + 3)
    client, costs = Client(), []
    for address in (f"/bots/{bot_id}/", f"/bots/{bot_id}/?matches_before={ids[5]}"):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(address).status_code == 200
        costs.append(len(captured))
    assert costs[0] == costs[1], costs


def tournaments_of_two_people() -> dict[str, Tournament]:
    """Ada's Big Two cup, Bea's Oceans 11 cup with Ada's bot, Bea's Fifteen35 cup."""
    ada, bea = make_user("ada"), make_user("bea")
    entrants = {
        game: [quick_bot(ada if game == "oceans11" else bea, game, f"{game}-a"),
               quick_bot(bea, game, f"{game}-b")]
        for game in ("bigtwo", "oceans11", "fifteen35")
    }  # fmt: skip
    made = {}
    for owner, game, status in [
        (ada, "bigtwo", Tournament.Status.FINISHED),
        (bea, "oceans11", Tournament.Status.RUNNING),
        (bea, "fifteen35", Tournament.Status.FINISHED),
    ]:
        made[game] = competition_actions.create_tournament(
            owner, f"{owner.username}'s {game} cup", game, entrants[game], table_size=2
        )
        Tournament.objects.filter(pk=made[game].pk).update(status=status, started_at=timezone.now())
    return made


def test_the_tournament_list_filters_by_game_status_and_mine_with_names_and_dates(
    visit: Visit, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournaments_of_two_people()
    page = visit.page
    log_in(visit, "ada")
    visit.go("/tournaments/")
    rows = page.locator("table.tournaments tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("Fifteen Thirty-Five")
    expect(rows.first.locator("time")).to_have_text(DATE)
    expect(rows.first.locator("td").nth(1)).to_have_text(re.compile("^Fifteen Thirty-Five"))
    visit.check("tournaments")

    filters = page.get_by_role("form", name="Filter the tournaments")
    filters.get_by_label("Game").select_option(label="Big Two")
    filters.get_by_role("button", name="Show").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("ada's bigtwo cup")
    expect(page).to_have_title(re.compile("^Tournaments: Big Two"))
    visit.audit()

    filters.get_by_label("Game").select_option(label="every game")
    filters.get_by_label("Status").select_option("running")
    filters.get_by_role("button", name="Show").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("bea's oceans11 cup")
    visit.audit()

    monkeypatch.setattr(tournament_views, "TOURNAMENTS_PER_PAGE", 1)
    filters.get_by_label("Status").select_option("")
    filters.get_by_label("Mine or with my bots").check()
    filters.get_by_role("button", name="Show").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("bea's oceans11 cup")  # ada's bot entered it
    visit.audit()
    page.get_by_role("link", name="older ›").click()
    expect(rows.first).to_contain_text("ada's bigtwo cup")
    expect(page.get_by_role("link", name="older ›")).to_have_count(0)  # the filter is kept
    expect(filters.get_by_label("Mine or with my bots")).to_be_checked()
    visit.audit()


def test_a_filtered_tournament_list_costs_the_same_queries_on_every_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tournament_views, "TOURNAMENTS_PER_PAGE", 1)
    made = tournaments_of_two_people()
    client = Client()
    client.force_login(made["bigtwo"].owner)  # type: ignore[arg-type]
    costs = set()
    for query in (
        "?mine=1",
        f"?mine=1&after={made['oceans11'].pk}",
        "?game=bigtwo&status=finished",
    ):
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/tournaments/" + query).status_code == 200
        costs.add(len(captured))
    assert len(costs) == 1, costs


@pytest.mark.usefixtures("fast_matches")
def test_a_match_page_title_names_its_bots(visit: Visit) -> None:
    owner = make_user("ada")
    entrants = [quick_bot(owner, "oceans11", name) for name in ("ada-bot", "rival")]
    tournament = played_tournament(owner, "oceans11", entrants)
    match = Match.objects.get(tournament=tournament)
    names = [seat.version.bot.name for seat in match.seats.order_by("index")]
    visit.go(f"/matches/{match.pk}/")
    expect(visit.page).to_have_title(
        f"{names[0]} vs {names[1]}: match {match.pk} · Card-game bot judge"
    )
