"""Issue 43: one owner's bots never share a rated table (their bots could tell each other
their hands through the host's caches): the ladder never seats two of them together, and
a rated tournament plays such a table unrated."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth.models import User

from tests.tournaments.fairplay_matches import version_of
from tournaments.competitions import competition_actions, ladder, matchmaking, owners
from tournaments.models import BotVersion, Ladder, Match


def test_matchmaking_never_seats_two_players_of_one_owner_together() -> None:
    rng = random.Random(3)
    players = [
        matchmaking.Player(f"p{i}", rng.gauss(1500, 200), rng.uniform(60, 350), i, owner)
        for i, owner in enumerate(["ann", "ann", "ann", "bo", "bo", "cy", None, None, "di"])
    ]
    for size in (2, 3, 4):
        picks = matchmaking.choose(players, size, tables=9, explore=random.Random(size))
        assert picks, f"tables of {size} can be made"
        for pick in picks:
            owners = [p.owner for p in pick.seats if p.owner is not None]
            assert len(owners) == len(set(owners)), pick.reason()
    # Only one owner's players left: no table at all rather than theirs together.
    alone = [p for p in players if p.owner == "ann"]
    assert matchmaking.choose(alone, 2, tables=3) == []


@pytest.mark.django_db
def test_the_ladder_plans_no_table_of_one_owners_bots() -> None:
    ann, bo = (User.objects.create_user(n) for n in ("ann", "bo"))
    for name, owner in (("ann0", ann), ("ann1", ann), ("ann2", ann), ("bo0", bo)):
        version_of(name, owner)
    house = version_of("house")
    house.bot.house_policy = "greedy"
    house.bot.save()
    Ladder.objects.create(game="bigtwo", table_size=0)
    plan = ladder.plan("bigtwo", tables=5, explore=None)
    assert plan.size == 3, "three owners (ann, bo, the house) fill a table of three, not four"
    assert plan.picks
    for pick in plan.picks:
        owners = [ladder_owner(v) for v in (p.key for p in pick.seats)]
        assert len(owners) == len(set(owners))


def ladder_owner(version_id: int) -> object:
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    return owners.code_owner(version) or f"house-{version.bot_id}"


@pytest.mark.django_db
def test_a_rated_tournament_plays_a_table_of_one_owners_bots_unrated() -> None:
    ann, bo = (User.objects.create_user(n) for n in ("ann", "bo"))
    mine = [version_of("ann-a", ann), version_of("ann-b", ann)]
    # A bot of ann's that plays a house policy runs the service's code: it may sit with hers.
    policy = version_of("ann-greedy", ann)
    policy.bot.house_policy = "greedy"
    policy.bot.save()
    other = version_of("bo-a", bo)
    tournament = competition_actions.create_tournament(
        ann, "mixed", "bigtwo", [*mine, other, policy], table_size=2, rated=True
    )
    competition_actions.start_tournament(tournament.pk)
    matches = Match.objects.filter(tournament=tournament).prefetch_related("seats")
    assert matches.count() == 6
    for match in matches:
        seated = {seat.version_id for seat in match.seats.all()}
        assert match.rated == (seated != {v.pk for v in mine}), seated
    assert sum(not m.rated for m in matches) == 1
