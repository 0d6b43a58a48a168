"""Duels (issue 35) on the service: rounds of two matches on the same deals, B and A swapped,
played by the dispatcher and the play task (in-process here, by real workers in the last
test), folded into the sequential test until it decides; who may duel what, and cancel.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, announce_workers, wait_for
from tests.tournaments.test_dispatch import finish_one_and_dispatch, round_robin
from tournaments.bots import bot_actions
from tournaments.competitions import duels
from tournaments.competitions.duels import DuelRequest
from tournaments.errors import ServiceError
from tournaments.models import Bot, BotVersion, Duel, Match, Rating
from tournaments.play import dispatch, lease, queued_work

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("local_sandbox"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def own_version(owner: User, policy: str, game: str = "oceans11") -> BotVersion:
    """An accepted version of ``owner``'s bot that plays house policy ``policy``."""
    bot = Bot.objects.create(owner=owner, game=game, name=f"my-{policy}", house_policy=policy)
    return bot_actions.add_version(bot, b"", f"{owner.pk}:{policy}", BotVersion.Status.ACCEPTED)


@pytest.fixture
def owner() -> User:
    return User.objects.create(username="duellist")


def test_a_duel_plays_swapped_rounds_until_the_test_decides_h1(owner: User) -> None:
    b = own_version(owner, "greedy")
    a = bot_actions.house_version("oceans11", "random")
    request = DuelRequest(b=b, a=a, elo1=300, pairs_per_round=5, max_games=200, seed=7)
    duel = duels.create_duel(owner, request)  # rounds are played in-process after commit

    duel.refresh_from_db()
    assert duel.status == Duel.Status.DECIDED and duel.state["decision"] == "H1"
    rounds = len(duel.state["history"])
    matches = list(duel.matches.filter(status=Match.Status.DONE).order_by("number"))
    assert len(matches) == 2 * rounds
    assert {(m.rated, m.games) for m in matches} == {(False, 5)}
    for first, second in zip(matches[::2], matches[1::2], strict=True):
        assert first.seed == second.seed and first.duel_round == second.duel_round
        assert [s.pk for s in first.seat_versions()] == [b.pk, a.pk]
        assert [s.pk for s in second.seat_versions()] == [a.pk, b.pk]
    # The test stopped at the pair that crossed H1's bound; the round's later pairs are
    # its overshoot, played and kept apart. The round queued after it was cancelled.
    played = duel.state["games"] + duel.state["overshoot"]["games"]
    assert played == sum(m.games for m in matches) == 10 * rounds
    assert duel.state["looks"] == duel.state["pairs"]
    assert set(duel.matches.exclude(status=Match.Status.DONE).values_list("status", flat=True)) == {
        Match.Status.CANCELLED
    }
    assert duel.state["elo"]["estimate"] > 0 and duel.finished_at is not None
    assert not Rating.objects.exists(), "duel matches are unrated"
    assert not dispatch.quick_matches().exists(), "duel matches are not quick matches"


def test_a_duel_stops_at_its_cap_and_fills_a_larger_table_with_the_panel(owner: User) -> None:
    b = own_version(owner, "random", game="bigtwo")
    a = bot_actions.house_version("bigtwo", "random")
    request = DuelRequest(b=b, a=a, table_size=4, pairs_per_round=5, max_games=20, seed=3)
    duel = duels.create_duel(owner, request)

    duel.refresh_from_db()
    assert duel.status == Duel.Status.CAPPED and duel.state["decision"] == "cap"
    assert duel.state["games"] == 20 and len(duel.state["history"]) == 2
    panel = bot_actions.house_version("bigtwo", "greedy")
    first, second = duel.matches.order_by("duel_round", "duel_seating")[:2]
    assert [v.pk for v in first.seat_versions()] == [b.pk, panel.pk, a.pk, panel.pk]
    assert [v.pk for v in second.seat_versions()] == [a.pk, panel.pk, b.pk, panel.pk]


def test_two_identical_house_bots_play_pairs_that_do_not_mirror_each_other(owner: User) -> None:
    # Issue 47: house bots were seeded by seat, so B in a pair's second game replayed A's
    # choices of the first: two identical random bots tied every pair, H0 after 100 games
    # with the interval [-0.0, -0.0]. Seeded by the seat each held first, they do not.
    b = own_version(owner, "random")
    a = bot_actions.house_version("oceans11", "random")
    request = DuelRequest(b=b, a=a, pairs_per_round=25, max_games=100, seed=7)
    duel = duels.create_duel(owner, request)

    duel.refresh_from_db()
    counts = duel.state["pentanomial"]
    assert sum(counts) == duel.state["pairs"] > 0
    assert counts[2] < sum(counts), f"every pair tied: {counts}"
    elo = duel.state["elo"]
    assert elo["low"] < elo["estimate"] < elo["high"]


def test_two_identical_deterministic_house_bots_get_a_finite_interval_of_some_width(
    owner: User,
) -> None:
    # Issue 47: the same deterministic bot (Big Two's greedy) on both sides of the same
    # deals ties every pair, as it should; the duel accepts H0 at the 50th pair. The plain
    # interval was [-0.0, -0.0]; what the service stores, the API serves and the page shows
    # (judge.duel.stopped) is finite and not of width 0. The round size is the server's.
    b = own_version(owner, "greedy", game="bigtwo")
    a = bot_actions.house_version("bigtwo", "greedy")
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a, table_size=2, seed=5))

    duel.refresh_from_db()
    assert duel.status == Duel.Status.DECIDED and duel.state["decision"] == "H0"
    assert duel.state["pentanomial"] == [0, 0, 50, 0, 0]
    elo = duel.state["elo"]
    assert None not in elo.values(), elo
    assert elo["low"] < -5.0 < elo["estimate"] < 5.0 < elo["high"], elo
    client = Client()
    client.force_login(owner)
    assert client.get(f"/api/duels/{duel.pk}/").json()["state"]["elo"] == elo
    page = client.get(f"/duels/{duel.pk}/").content.decode()
    assert f"95% interval [{elo['low']:+.1f}, {elo['high']:+.1f}]" in page


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"b": "theirs"}, "must be a version of one of your own bots"),
        ({"a": "same"}, "A and B are the same version"),
        ({"a": "bigtwo"}, "plays bigtwo, not oceans11"),
        ({"pairs_per_round": 0}, "a round plays 1 to 50 pairs, not 0"),
        ({"max_games": 10_000}, "the game cap must be from 20 to 4000 games"),
        ({"elo0": 30, "elo1": 10}, "the Elo bounds need"),
        ({"alpha": 0.7}, "alpha and beta must be above 0"),
        ({"table_size": 3}, "oceans11 is played by 2 to 2 players, not 3"),
    ],
)
def test_it_refuses_a_duel_saying_what_is_wrong(
    owner: User, change: dict[str, object], said: str
) -> None:
    fields: dict[str, object] = {
        "b": own_version(owner, "greedy"),
        "a": bot_actions.house_version("oceans11", "random"),
    }
    other = User.objects.create(username="other")
    named = {
        "theirs": own_version(other, "greedy"),
        "same": fields["b"],
        "bigtwo": bot_actions.house_version("bigtwo", "random"),
    }
    fields.update({k: named.get(v, v) if isinstance(v, str) else v for k, v in change.items()})
    with pytest.raises(ServiceError, match=said):
        duels.create_duel(owner, DuelRequest(**fields))  # type: ignore[arg-type]
    assert not Duel.objects.exists() and not Match.objects.exists()


def test_only_the_owner_cancels_and_running_duels_are_bounded(owner: User) -> None:
    b = own_version(owner, "greedy")
    a = bot_actions.house_version("oceans11", "random")
    outsider = User.objects.create(username="outsider")
    with transaction.atomic():  # nothing is played before the commit
        made = [duels.create_duel(owner, DuelRequest(b=b, a=a)) for _ in range(3)]
        with pytest.raises(ServiceError, match="already have 3 duels running"):
            duels.create_duel(owner, DuelRequest(b=b, a=a))
        with pytest.raises(ServiceError, match="is not a duel of yours"):
            duels.cancel_duel(made[0].pk, outsider)
        for duel in made:
            duels.cancel_duel(duel.pk, owner)
        with pytest.raises(ServiceError, match="is cancelled: only a running duel"):
            duels.cancel_duel(made[0].pk, owner)
    assert set(Duel.objects.values_list("status", flat=True)) == {Duel.Status.CANCELLED}
    assert set(Match.objects.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    # Each duel queued its first DUEL_ROUNDS_IN_FLIGHT (2) rounds of two matches.
    assert Match.objects.count() == 12 and not Match.objects.filter(sent_at__isnull=False)


def test_real_workers_play_a_duel_to_its_decision(owner: User, workers: Workers) -> None:
    b = own_version(owner, "greedy")
    a = bot_actions.house_version("oceans11", "random")
    workers.start("duel", processes=2)
    with transaction.atomic():
        duel = duels.create_duel(owner, DuelRequest(b=b, a=a, elo1=300, pairs_per_round=5))

    def over() -> bool:
        duel.refresh_from_db()
        return duel.status != Duel.Status.RUNNING

    wait_for(over, 120, "the duel to be decided")
    assert duel.status == Duel.Status.DECIDED and duel.state["decision"] == "H1"
    played = duel.matches.filter(status=Match.Status.DONE)
    assert played.count() == 2 * len(duel.state["history"])
    assert {m.worker.split("@")[0] for m in played} == {"duel"}


def test_a_house_duel_seats_house_bots_is_public_and_only_staff_cancel_it(owner: User) -> None:
    greedy = bot_actions.house_version("oceans11", "greedy")
    random = bot_actions.house_version("oceans11", "random")
    staff = User.objects.create(username="staff", is_staff=True)
    with transaction.atomic():  # nothing is played before the commit
        with pytest.raises(ServiceError, match="must be a version of one of your own bots"):
            duels.create_duel(None, DuelRequest(b=own_version(owner, "greedy"), a=random))
        duel = duels.create_duel(None, DuelRequest(b=greedy, a=random))
        assert Client().get(f"/duels/{duel.pk}/").status_code == 200
        with pytest.raises(ServiceError, match="is not a duel of yours"):
            duels.cancel_duel(duel.pk, owner)
        assert duels.cancel_duel(duel.pk, staff).status == Duel.Status.CANCELLED
    assert set(duel.matches.values_list("status", flat=True)) == {Match.Status.CANCELLED}


@pytest.mark.usefixtures("redis_broker")
def test_a_match_failed_for_good_ends_the_duel_saying_so(owner: User) -> None:
    b, a = own_version(owner, "greedy"), bot_actions.house_version("oceans11", "random")
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a))  # no worker: nothing is played
    first, second = rounds_of(duel)[0]
    attempt = lease.claim_match(first.pk, "test-worker")
    assert attempt is not None
    assert lease.fail_match(first.pk, attempt, "cannot be played: a broken deal")
    duel.refresh_from_db()
    assert duel.status == Duel.Status.FAILED and duel.finished_at is not None
    assert f"round 1's match {first.pk} failed for good" in duel.failure
    assert "a broken deal" in duel.failure
    second.refresh_from_db()
    assert second.status == Match.Status.CANCELLED
    assert {m.status for m in rounds_of(duel)[1]} == {Match.Status.CANCELLED}


def finish_with_b_winning(match: Match) -> None:
    """Store ``match`` as played, B beating A 3 to 1 in every game (no worker plays it)."""
    attempt = lease.claim_match(match.pk, "test-worker")
    assert attempt is not None
    b_seat = match.duel_seating  # B sits in seat 0 of a round's first match, 1 of its second
    scores = [3, 1] if b_seat == 0 else [1, 3]
    places = [1, 2] if b_seat == 0 else [2, 1]
    game = {"scores": scores, "places": places}
    outcome = {
        "scores": [n * match.games for n in scores],
        "places": places,
        "games": [{"deal": i, "seating": [0, 1], "result": game} for i in range(match.games)],
    }
    assert lease.finish_match(match.pk, attempt, outcome)


def rounds_of(duel: Duel) -> dict[int, list[Match]]:
    found: dict[int, list[Match]] = {}
    for match in duel.matches.order_by("duel_round", "duel_seating"):
        found.setdefault(match.duel_round, []).append(match)
    return found


@pytest.mark.usefixtures("redis_broker")
def test_rounds_in_flight_are_folded_in_their_order_and_cancelled_at_the_decision(
    owner: User,
) -> None:
    # Two rounds are queued at once (DUEL_ROUNDS_IN_FLIGHT); B winning every game of
    # [0, 300] takes 6 pairs: the 5 of round 1 leave the LLR short of the bound, the first
    # pair of round 2 crosses it.
    b, a = own_version(owner, "greedy"), bot_actions.house_version("oceans11", "random")
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a, elo1=300, pairs_per_round=5))
    assert sorted(rounds_of(duel)) == [0, 1]
    for match in rounds_of(duel)[1]:  # the second round ends first: it waits for the first
        finish_with_b_winning(match)
    duel.refresh_from_db()
    assert duel.state["history"] == [] and sorted(rounds_of(duel)) == [0, 1]
    first, second = rounds_of(duel)[0]
    finish_with_b_winning(first)
    duel.refresh_from_db()
    assert duel.state["history"] == [] and duel.status == Duel.Status.RUNNING
    finish_with_b_winning(second)  # both rounds folded in, in order: decided in the second
    duel.refresh_from_db()
    assert duel.status == Duel.Status.DECIDED and duel.state["decision"] == "H1"
    assert duel.state["pentanomial"] == [0, 0, 0, 0, 6] and duel.state["looks"] == 6
    assert duel.state["overshoot"] == {"pairs": 4, "games": 8, "pentanomial": [0, 0, 0, 0, 4]}
    assert [games for games, _ in duel.state["history"]] == [10, 12]
    assert sorted(rounds_of(duel)) == [0, 1], "no round is queued after the decision"


@pytest.mark.usefixtures("redis_broker")
def test_a_round_still_in_flight_at_the_decision_is_cancelled(owner: User) -> None:
    b, a = own_version(owner, "greedy"), bot_actions.house_version("oceans11", "random")
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a, elo1=300, pairs_per_round=5))
    for match in rounds_of(duel)[0]:
        finish_with_b_winning(match)
    assert sorted(rounds_of(duel)) == [0, 1, 2], "a third round keeps two in flight"
    third = rounds_of(duel)[2]
    assert all(m.status == Match.Status.QUEUED and m.games == 5 for m in third)
    for match in rounds_of(duel)[1]:
        finish_with_b_winning(match)
    duel.refresh_from_db()
    assert duel.status == Duel.Status.DECIDED and duel.state["pairs"] == 6
    assert {m.status for m in rounds_of(duel)[2]} == {Match.Status.CANCELLED}


@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_a_duel_takes_turns_with_a_flood_of_tournament_matches(
    owner: User, settings: SettingsWrapper
) -> None:
    settings.TOURNAMENT_SLOTS = 2
    flood = round_robin(User.objects.create(username="flood"), entrants=5, rounds=3)
    b, a = own_version(owner, "greedy"), bot_actions.house_version("oceans11", "random")
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a))
    assert duel.matches.filter(sent_at__isnull=True).count() == 4, "the slots were full"
    owners = []
    while duel.matches.filter(sent_at__isnull=True).exists():
        announce_workers(10)  # still alive, however slowly a loaded machine gets here
        sent = finish_one_and_dispatch()
        assert len(sent) == 1, owners
        owners.append("duel" if sent[0].duel_id else "flood")
    # FIFO would have sent the flood's 28 waiting matches first; the owners take turns.
    assert owners.count("flood") <= 5 and owners.count("duel") == 4, owners
    assert flood.matches.filter(sent_at__isnull=True).count() >= 25


@pytest.mark.usefixtures("redis_broker")
def test_staff_read_duels_in_the_admin(owner: User) -> None:
    b, a = own_version(owner, "greedy"), bot_actions.house_version("oceans11", "random")
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a))
    admin = Client()
    admin.force_login(User.objects.create(username="root", is_staff=True, is_superuser=True))
    listed = admin.get("/admin/tournaments/duel/")
    assert listed.status_code == 200 and f"{b}" in listed.content.decode()
    shown = admin.get(f"/admin/tournaments/duel/{duel.pk}/change/")
    assert shown.status_code == 200 and "pentanomial" in shown.content.decode()
    match = duel.matches.first()
    assert match is not None
    assert admin.get(f"/admin/tournaments/match/{match.pk}/change/").status_code == 200


@pytest.mark.usefixtures("redis_broker")
def test_retiring_a_version_ends_the_running_duels_seating_it(owner: User) -> None:
    b, a = own_version(owner, "greedy"), bot_actions.house_version("oceans11", "random")
    other = duels.create_duel(
        owner, DuelRequest(b=b, a=bot_actions.house_version("oceans11", "greedy"))
    )
    duel = duels.create_duel(owner, DuelRequest(b=b, a=a))
    dropped = queued_work.withdraw_queued([a])
    assert dropped["duels"] == 1
    duel.refresh_from_db()
    assert duel.status == Duel.Status.CANCELLED and "was retired" in duel.failure
    assert set(duel.matches.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    other.refresh_from_db()
    assert other.status == Duel.Status.RUNNING
