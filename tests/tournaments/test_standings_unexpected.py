"""Issue 32, item 4: a tournament's page, its live part and its standings (API and
head-to-head) answer 200 on data start_tournament never writes: matches seating versions
that are not entrants, a tournament with matches but no entrants at all, and a finished
match whose places do not fit its seats. The table shows whoever played."""

from __future__ import annotations

import pytest
from django.test import Client

from tournaments.competitions.standings import tournament_table
from tournaments.models import Bot, BotVersion, Match, Seat, Tournament

pytestmark = pytest.mark.django_db


def version(name: str) -> BotVersion:
    bot = Bot.objects.create(game="oceans11", name=name)
    return BotVersion.objects.create(
        bot=bot, number=1, content_hash=name, status=BotVersion.Status.ACCEPTED
    )


def played(tournament: Tournament, number: int, seats: list[BotVersion], places: list[int]) -> None:
    match = Match.objects.create(
        tournament=tournament,
        number=number,
        game="oceans11",
        status=Match.Status.DONE,
        result={"scores": [-p for p in places], "places": places, "games": []},
    )
    Seat.objects.bulk_create(Seat(match=match, index=i, version=v) for i, v in enumerate(seats))


def odd_tournament(entrants: list[BotVersion], status: str) -> Tournament:
    """A tournament of these entrants whose matches seat two strangers as well."""
    tournament = Tournament.objects.create(
        name="odd cup", game="oceans11", table_size=2, status=status, matches_total=3
    )
    tournament.participants.set(entrants)
    strangers = [version("stranger1"), version("stranger2")]
    played(tournament, 0, strangers, [1, 2])
    played(tournament, 1, [strangers[0], *entrants[:1]] if entrants else strangers, [2, 1])
    played(tournament, 2, strangers, [1])  # one place for two seats: counts for no one
    return tournament


def answers(tournament: Tournament) -> dict[str, int]:
    client = Client(raise_request_exception=False)
    paths = [
        f"/tournaments/{tournament.pk}/",
        f"/tournaments/{tournament.pk}/?part=live",
        f"/api/tournaments/{tournament.pk}/standings/",
        f"/api/tournaments/{tournament.pk}/head-to-head/",
    ]
    return {path: client.get(path).status_code for path in paths}


@pytest.mark.parametrize("status", [Tournament.Status.RUNNING, Tournament.Status.FINISHED])
@pytest.mark.parametrize("entrants", [0, 2])
def test_matches_of_versions_not_entered_are_shown_not_a_500(status: str, entrants: int) -> None:
    entered = [version(f"entrant{i}") for i in range(entrants)]
    tournament = odd_tournament(entered, status)
    for _ in range(2):  # fitted, then read from the cached fit
        assert set(answers(tournament).values()) == {200}
    table = tournament_table(tournament)
    names = {table.versions[row.participant].bot.name for row in table.rows}
    assert {"stranger1", "stranger2"} <= names
    assert {v.bot.name for v in entered} <= names
    assert table.matches_done == 3
    standings = Client().get(f"/api/tournaments/{tournament.pk}/standings/").json()
    assert {"stranger1", "stranger2"} <= {row["bot_name"] for row in standings["rows"]}
