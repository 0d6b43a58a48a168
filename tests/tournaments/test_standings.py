"""Standings from stored matches: duplicate deals are compared over their whole set.

A duplicate match plays each deal once per seat rotation. When the cards decide every
game, a deal's games split evenly, so counting games one by one sees nothing but draws;
the table must instead compare the bots on the same cards (their scores summed over the
rotations of each deal).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from judge.engine import Result
from judge.referee import MatchSpec, rotations, schedule
from tests.tournaments.conftest import first_legal
from tournaments.competitions import competition_actions
from tournaments.competitions.standings import tournament_table
from tournaments.models import BotVersion, Match, Seat, Tournament
from tournaments.rating.model import tournament_fit
from tournaments.rating.model.units import encode, fill_missing, match_units, placings

#: Enough deals per pairing for the better bot's interval to clear the others'.
DEALS = 60


def margin(bot: BotVersion, deal: int, strong: BotVersion) -> int:
    """How much ``bot`` wins by from seat 0, which always wins (the cards decide).

    The strong bot makes the most of a winning deal (3) and loses little when the cards
    are against it (the opponent wins by 1), except on every fourth deal, where it plays
    badly; the others are alike.
    """
    if bot != strong:
        return 1 if deal % 4 else 3
    return 1 if deal % 4 == 0 else 3


def duplicate_games(pair: tuple[BotVersion, BotVersion], strong: BotVersion) -> list[Any]:
    """The games of a duplicate match in the referee's order and format."""
    spec = MatchSpec(game="bigtwo", seed=1, games=DEALS, duplicate=True)
    games = []
    for index, (deal, seating) in enumerate(schedule(spec, 2)):
        win = margin(pair[seating[0]], deal, strong)
        result = {"scores": [win, -win], "places": [1, 2]}
        games.append({"index": index, "deal": deal, "seating": seating, "result": result})
    return games


def finished_duplicate_round_robin(*, with_deal_numbers: bool) -> tuple[Tournament, list[Any]]:
    versions = [first_legal("bigtwo", name) for name in ("strong", "plain", "other")]
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", versions, table_size=2, games_per_pairing=DEALS, duplicate=True
    )
    every_game = []
    for number, pair in enumerate(itertools.combinations(versions, 2)):
        games = duplicate_games(pair, versions[0])
        every_game += [(pair, game) for game in games]
        totals = [0, 0]
        for game in games:
            for seat, bot in enumerate(game["seating"]):
                totals[bot] += game["result"]["scores"][seat]
        if not with_deal_numbers:
            games = [{"seating": g["seating"], "result": g["result"]} for g in games]
        match = Match.objects.create(
            tournament=tournament,
            number=number,
            game="bigtwo",
            games=DEALS,
            duplicate=True,
            status=Match.Status.DONE,
            result={
                "scores": totals,
                "places": list(Result.from_scores(totals).places),
                "games": games,
            },
        )
        Seat.objects.bulk_create(Seat(match=match, index=i, version=v) for i, v in enumerate(pair))
    # Stored as before units existed: the migration's fill derives them from the results.
    assert fill_missing(Match) == 3
    assert fill_missing(Match) == 0
    return tournament, every_game


@pytest.mark.django_db
@pytest.mark.parametrize("with_deal_numbers", [True, False])
def test_a_bot_better_on_the_same_deals_gets_an_elo_interval_above_the_others(
    with_deal_numbers: bool,
) -> None:
    tournament, every_game = finished_duplicate_round_robin(with_deal_numbers=with_deal_numbers)
    # Game by game, every deal splits 1-1: a per-game fit sees three equal bots.
    per_game = [
        outcome
        for pair, game in every_game
        for outcome in tournament_fit.pairwise(
            [pair[bot].pk for bot in game["seating"]], game["result"]["places"]
        )
    ]
    assert {round(elo) for elo, _ in tournament_fit.fit_elo(per_game).values()} == {1500}

    table = tournament_table(tournament)
    strong, *others = table.rows
    assert table.versions[strong.participant].bot.name == "strong"
    assert (strong.place, strong.points, strong.matches) == (1, 2.0, 2)
    assert [(row.place, row.points) for row in others] == [(2, 0.5), (2, 0.5)]
    assert all(strong.elo_low > row.elo_high for row in others)
    # The two alike bots tie every deal: equal ratings, symmetric about the field's mean.
    assert others[0].elo == pytest.approx(others[1].elo)
    assert strong.elo + 2 * others[0].elo == pytest.approx(3 * tournament_fit.START_ELO)


def fit_placings(
    seats: tuple[int, ...], games: list[Any], *, duplicate: bool, deals: int
) -> list[tournament_fit.Placing[int]]:
    """The units of a match as stored (encoded) and read back by the standings."""
    result = {"places": [1] * len(seats), "games": games}
    stored = encode(match_units(len(seats), result, duplicate=duplicate, deals=deals))
    return placings(seats, stored)


def test_a_deal_decided_by_the_cards_alone_is_a_draw_for_everyone_at_a_table_of_four() -> None:
    seat_scores = [6, 0, -2, -4]  # the same cards give each seat the same score
    games = [
        {"deal": 0, "seating": seating, "result": {"scores": seat_scores, "places": [1, 2, 3, 4]}}
        for seating in rotations(4)
    ]
    assert fit_placings((10, 11, 12, 13), games, duplicate=True, deals=1) == [
        tournament_fit.Placing((10, 11, 12, 13), (1, 1, 1, 1))
    ]


def test_each_deal_of_a_duplicate_match_is_one_result_placed_by_summed_scores() -> None:
    games = [
        {"deal": 0, "seating": [0, 1], "result": {"scores": [5, -5], "places": [1, 2]}},
        {"deal": 1, "seating": [0, 1], "result": {"scores": [-2, 2], "places": [2, 1]}},
        {"deal": 0, "seating": [1, 0], "result": {"scores": [1, -1], "places": [1, 2]}},
        {"deal": 1, "seating": [1, 0], "result": {"scores": [-2, 2], "places": [2, 1]}},
    ]
    assert fit_placings((7, 8), games, duplicate=True, deals=2) == [
        tournament_fit.Placing((7, 8), (1, 2)),  # deal 0: bot 0 has 5 - 1 = 4, bot 1 has -4
        tournament_fit.Placing((7, 8), (1, 1)),  # deal 1: -2 + 2 each
    ]


def test_games_of_a_match_without_duplicate_deals_count_one_by_one() -> None:
    games = [
        {"deal": 0, "seating": [0, 1], "result": {"scores": [5, -5], "places": [1, 2]}},
        {"deal": 1, "seating": [1, 0], "result": {"scores": [1, -1], "places": [1, 2]}},
    ]
    assert fit_placings((7, 8), games, duplicate=False, deals=2) == [
        tournament_fit.Placing((7, 8), (1, 2)),
        tournament_fit.Placing((7, 8), (2, 1)),  # bot 1 sat in seat 0 and won
    ]
