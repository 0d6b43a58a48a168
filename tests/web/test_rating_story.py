"""One rating story (issue 46): at any moment the leaderboard, the bot page and the API show
the same figure for a bot (the one rating, ``field_view.standing``), with what "as of",
"own" and "Trend" mean beside it; results rated after the pass change none of them until
the next pass; a new version's widened interval says why; the bot page lists each match
once. Real results: tournaments of house bots played through the service; the board and
the bot pages read at last in a browser at both widths, with axe."""

from __future__ import annotations

import re

import pytest
from django.template.defaultfilters import floatformat
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from tests.web.conftest import Visit, make_user, played_tournament, quick_bot
from tournaments.bots import bot_actions
from tournaments.competitions import ladder
from tournaments.models import Bot, BotVersion, Match, Rating, bundle_code
from tournaments.rating.model import global_rating
from tournaments.rating.stored import field_view

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_matches")]
GAME = "bigtwo"


def printed(elo: float, deviation: float) -> str:
    """A rating and its interval as the board and the bot page print them."""
    low, high = global_rating.interval(elo, deviation)
    return f"{floatformat(elo, 0)}</strong> <small>[{floatformat(low, 0)}, {floatformat(high, 0)}]"


def board_row(board: str, name: str) -> str:
    """The leaderboard's row of the bot called ``name``."""
    found = re.search(
        rf"<tr>\s*<td>\d+</td>\s*<td><a href=\"[^\"]+\">{name}</a>.*?</tr>", board, re.S
    )
    assert found, f"no row of {name}"
    return found.group(0)


def heading(page: str) -> str:
    """The bot page's rating line (before its first section)."""
    return page.split("<h2>")[0]


def same_everywhere(client: Client, bots: list[Bot]) -> dict[int, field_view.Standing]:
    """Each bot's figure on the board, on its page and in the API (its row of the
    leaderboard and its own record) is its one rating; returns them."""
    board = client.get(reverse("web:leaderboard", args=[GAME])).content.decode()
    api = {row["bot"]: row for row in client.get(f"/api/leaderboards/{GAME}/").json()["results"]}
    shown = {}
    for bot in bots:
        rating = Rating.objects.select_related("field").get(bot=bot)
        one = field_view.standing(rating)
        figure = printed(one.elo, one.deviation)
        assert figure in board_row(board, bot.name)
        assert figure in heading(client.get(reverse("web:bot", args=[bot.pk])).content.decode())
        for standing in (
            api[bot.pk]["standing"],
            client.get(f"/api/bots/{bot.pk}/").json()["rating"]["standing"],
        ):
            assert (standing["elo"], standing["deviation"]) == (one.elo, one.deviation)
            assert standing["own"] == one.own and standing["joint"] == (not one.own)
        shown[bot.pk] = one
    return shown


def test_the_board_the_bot_page_and_the_api_tell_one_rating_story(visit: Visit) -> None:
    owner = make_user("owner")
    entrants = [quick_bot(owner, GAME, f"b{i}", "greedy") for i in range(2)]
    entrants.append(quick_bot(None, GAME, "r"))
    bots = [v.bot for v in entrants]
    played_tournament(owner, GAME, entrants, table_size=2, games_per_pairing=4)
    assert field_view.refresh(GAME) == "refitted"
    client = Client()
    passed = same_everywhere(client, bots)

    # Rated after the pass: the stored state moves, the one rating does not (until the
    # next pass), on every page alike.
    moved = {r.bot_id: r.elo for r in Rating.objects.all()}
    played_tournament(owner, GAME, entrants, table_size=2, games_per_pairing=4, seed=12)
    assert any(r.elo != moved[r.bot_id] for r in Rating.objects.all())
    after = same_everywhere(client, bots)
    figures = {k: (v.elo, v.deviation, v.as_of) for k, v in after.items()}
    assert figures == {k: (v.elo, v.deviation, v.as_of) for k, v in passed.items()}

    board = client.get(reverse("web:leaderboard", args=[GAME])).content.decode()
    for said in ("<strong>As of</strong>", "A bot marked <em>own</em> is one no pass has seen"):
        assert said in board
    assert "<strong>Trend</strong>: the bot's own rating over its last 10 rated matches" in board
    page = client.get(reverse("web:bot", args=[bots[0].pk])).content.decode()
    assert "As of " in page and "results since then count at the next pass" in page

    # A newcomer no pass has seen: marked "own" on the board, said so on its page.
    newcomer = quick_bot(None, GAME, "newcomer")
    played_tournament(owner, GAME, [newcomer, entrants[2]], table_size=2, seed=13)
    shown = same_everywhere(client, [*bots, newcomer.bot])
    assert shown[newcomer.bot_id].own and not shown[bots[0].pk].own
    board = client.get(reverse("web:leaderboard", args=[GAME])).content.decode()
    assert 'class="own"' in board_row(board, "newcomer")
    assert 'class="own"' not in board_row(board, "b0")
    page = client.get(reverse("web:bot", args=[newcomer.bot_id])).content.decode()
    assert "no field pass has seen this bot yet" in heading(page)
    # Read in a browser, at 1280 and 390 px with axe: the board's "as of" and "own" said
    # beside the figures, the newcomer marked "own" and its page saying what that means.
    browser = visit.page
    visit.go(f"/leaderboard/{GAME}/")
    expect(browser.locator(".rating-story")).to_contain_text("As of")
    expect(browser.get_by_role("row", name=re.compile("newcomer"))).to_contain_text("own")
    visit.check("rating-story-board")
    visit.go(f"/bots/{newcomer.bot_id}/")
    expect(browser.locator(".own-rating")).to_contain_text("no field pass has seen this bot yet")
    visit.check("rating-story-own")

    # A new version: its rating widens, and the page says why.
    code, digest = bundle_code({"main.py": b"# plays greedy, version 2\n"})
    second = bot_actions.add_version(bots[0], code, digest, BotVersion.Status.ACCEPTED)
    played_tournament(owner, GAME, [second, entrants[1]], table_size=2, seed=14)
    assert field_view.refresh(GAME) == "refitted"
    widened = same_everywhere(client, [*bots, newcomer.bot])
    assert widened[bots[0].pk].deviation > passed[bots[0].pk].deviation
    page = client.get(reverse("web:bot", args=[bots[0].pk])).content.decode()
    assert re.search(r"New version v2 \(1 rated match so far\).*interval widened", page)
    assert "New version" not in client.get(reverse("web:bot", args=[bots[1].pk])).content.decode()

    # In a browser at both widths with axe too: the new version's why.
    visit.go(f"/bots/{bots[0].pk}/")
    expect(browser.locator(".new-version")).to_contain_text("the interval widened then")
    visit.check("rating-story-new-version")


def test_the_bot_page_lists_each_match_once() -> None:
    """Its ladder matches among them (they were listed a second time under "Ladder games")."""
    owner = make_user("owner")
    entrants = [quick_bot(owner, GAME, f"b{i}", "greedy") for i in range(3)]
    played_tournament(owner, GAME, entrants, table_size=2, games_per_pairing=2)
    bot = entrants[0].bot
    mine = Match.objects.filter(seats__version__bot=bot).distinct()
    Match.objects.filter(pk__in=mine).update(ladder=ladder.ladder_of(GAME), tournament=None)
    page = Client().get(reverse("web:bot", args=[bot.pk])).content.decode()
    assert "Ladder games" not in page
    for match_id in mine.values_list("id", flat=True):
        link = reverse("web:match", args=[match_id])
        assert page.count(f'href="{link}"') == 1, match_id
