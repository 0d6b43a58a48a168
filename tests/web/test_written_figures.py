"""List pages write their figures and links in the view (a url tag or a filter per cell
cost more than the queries at a big site's size): what they write is what the template
filters and ``reverse`` would have written."""

from __future__ import annotations

import re

import pytest
from django.template.defaultfilters import floatformat
from django.test import Client
from django.urls import reverse

from tests.web.conftest import make_user, played_tournament, quick_bot
from tournaments.competitions.standings import tournament_table
from tournaments.web import text
from tournaments.web.links import link_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_matches")]


@pytest.mark.parametrize(
    "value", [0.5, 1.5, 2.5, -0.5, -0.3, -0.0, -0.04, 0.05, 0.95, 1534.4999, -12.5, 12.75, 2999.5]
)
def test_numbers_are_written_as_floatformat_writes_them(value: float) -> None:
    assert text.whole(value) == floatformat(value, 0)
    assert text.at_most_one_decimal(value) == floatformat(value, "-1")


def test_a_link_for_many_ids_is_what_reverse_gives() -> None:
    for name in ("web:bot", "web:match", "web:tournament"):
        link = link_for(name)
        assert [link(pk) for pk in (1, 42, 10**12)] == [
            reverse(name, args=[pk]) for pk in (1, 42, 10**12)
        ]


def test_the_tournament_page_writes_standings_head_to_head_and_matches() -> None:
    owner = make_user("owner")
    entrants = [quick_bot(owner, "fifteen35", f"b{i}", "greedy") for i in range(3)]
    entrants.append(quick_bot(None, "fifteen35", "house", "random"))
    tournament = played_tournament(owner, "fifteen35", entrants, table_size=3)
    page = Client().get(reverse("web:tournament", args=[tournament.pk]) + "?part=live")
    html = page.content.decode()
    table = tournament_table(tournament)
    for row in table.rows:
        version = table.versions[row.participant]
        bot = reverse("web:bot", args=[version.bot_id])
        line = (
            f'<tr><td>{row.place}</td><td><a class="bot-name" href="{bot}">{version.bot.name}</a> '
            f"<small>v{version.number}</small></td>\n"
            f'<td class="num"><strong>{floatformat(row.points, "-1")}</strong></td>'
            f'<td class="num">{row.pairs}</td>\n'
            f'<td class="num">{floatformat(row.elo, 0)} '
            f"<small>[{floatformat(row.elo_low, 0)}, {floatformat(row.elo_high, 0)}]</small>"
        )
        assert line in html
    first, second = table.rows[0].participant, table.rows[1].participant
    score = table.head_to_head[first][second]
    cells = re.search(r'<th scope="row">1\. [^<]*</th>\n(.*?)</tr>', html)
    assert cells is not None
    assert cells.group(1).split("</td>")[:2] == [
        '<td class="num">·',
        f'<td class="num">{floatformat(score.points, "-1")}/{score.pairs}',
    ]
    for match in tournament.matches.prefetch_related("seats__version__bot"):
        places = match.result["places"]  # type: ignore[index]
        seats = ", ".join(
            f'<a class="bot-name" href="{reverse("web:bot", args=[seat.version.bot_id])}">'
            f"{seat.version.bot.name}</a>"
            f' <span class="place p{places[seat.index]}">{places[seat.index]}</span>'
            for seat in match.seats.all()
        )
        assert f"<td>{seats}</td>" in html
        assert f'<a href="{reverse("web:match", args=[match.pk])}">replay</a>' in html
