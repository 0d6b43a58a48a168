"""The ladder's choices, step by step: its pure choice of tables, its entrants, and its
share of the slots (tasks go to Redis, no worker takes them; the test plays the workers'
part by marking matches done and dispatching again)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import first_legal
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions, ladder, matchmaking
from tournaments.models import Bot, BotVersion, FieldRating, Match, Rating, Seat, bundle_code
from tournaments.play import dispatch
from tournaments.rating.stored import field_view

Player = matchmaking.Player[str]


def test_the_most_uncertain_player_plays_first_against_the_nearest_settled_rating() -> None:
    field = [
        Player("low", 1200, 40, 60),
        Player("near", 1620, 40, 60),
        Player("far", 2100, 40, 60),
        Player("unsure", 1650, 60, 20),
        Player("new", 1500, 350, 0),
    ]
    first, second = matchmaking.choose(field, 2, tables=2)
    # The new bot first, against an opponent near its rating (not 300 or 600 away).
    assert first.seats[0].key == "new" and first.seats[1].key in {"near", "unsure"}
    assert first.after[0] < 350 and first.gain > second.gain > 0
    assert not {p.key for p in first.seats} & {p.key for p in second.seats}


def test_a_pair_that_met_often_gives_way_to_one_that_has_not() -> None:
    field = [Player(k, 1500 + 10 * i, 40, 50) for i, k in enumerate("abcd")]
    (fresh,) = matchmaking.choose(field, 2, tables=1)
    again = {tuple(sorted(p.key for p in fresh.seats)): 200}
    (other,) = matchmaking.choose(field, 2, tables=1, met=again)
    assert {p.key for p in other.seats} != {p.key for p in fresh.seats}
    assert other.gain > matchmaking.evaluate(fresh.seats, 1, again).gain


def test_an_even_game_between_known_players_teaches_more_than_a_mismatch() -> None:
    a = Player("a", 1500, 80)
    even, mismatch = Player("b", 1510, 80), Player("c", 2300, 80)
    assert matchmaking.evaluate([a, even], 1).gain > 3 * matchmaking.evaluate([a, mismatch], 1).gain
    unknown = Player("d", 1510, 350)
    assert matchmaking.sigma_after([a, even], 1)[0] < matchmaking.sigma_after([a, unknown], 1)[0]


def test_settled_players_play_only_with_unsettled_ones_and_tables_fill_to_their_size() -> None:
    settled = [Player(f"s{i}", 1500 + 10 * i, 30, 200) for i in range(6)]
    assert matchmaking.choose(settled, 2, tables=3, target=50) == []
    picks = matchmaking.choose([*settled, Player("new", 1500, 350)], 4, tables=3, target=50)
    assert len(picks) == 1 and len(picks[0].seats) == 4
    assert "new" in {p.key for p in picks[0].seats}
    assert "new: 1500 ±350 -> ±" in picks[0].reason()


def test_the_deviation_is_the_one_ratings_and_a_new_version_counts_its_own_matches() -> None:
    assert ladder.uncertainty(None) == ladder.PRIOR_DEVIATION
    known = field_view.Standing.of(1500.0, 42.0, units=200, as_of=None)
    assert ladder.uncertainty(known) == 42.0
    assert ladder.uncertainty(known, version_matches=500) == 42.0
    # A new version of a well-known bot is as uncertain as its own few matches say.
    assert ladder.uncertainty(known, version_matches=0) == ladder.PRIOR_DEVIATION
    assert ladder.PRIOR_DEVIATION > ladder.stand_in(10) > ladder.stand_in(50) > 42.0


def upload(bot: Bot, text: str, status: str = BotVersion.Status.ACCEPTED) -> BotVersion:
    code, digest = bundle_code({"main.py": text.encode()})
    return bot_actions.add_version(bot, code, digest, status)


def one_queued_ladder_match(settings: SettingsWrapper) -> Match:
    """The one Oceans 11 ladder match two new bots get with a single slot: queued, unplayed."""
    settings.LADDER_ENABLED, settings.LADDER_SLOTS, settings.TOURNAMENT_SLOTS = True, 1, 1
    for i in range(2):
        first_legal("oceans11", f"o{i}")
    dispatch.dispatch()
    (queued,) = ladder_in_flight()
    return queued


@pytest.mark.django_db
def test_the_latest_accepted_version_of_each_active_bot_enters_and_retired_ones_leave() -> None:
    old = first_legal("oceans11", "alpha")
    bot = old.bot
    new = upload(bot, "# v2\n")
    upload(bot, "# v3, still being checked\n", BotVersion.Status.PENDING)
    other = first_legal("oceans11", "beta")
    gone = first_legal("oceans11", "gamma")
    Bot.objects.filter(pk=gone.bot_id).update(retired=True)
    first_legal("bigtwo", "elsewhere")
    assert [v.pk for v in ladder.entrants("oceans11")] == [new.pk, other.pk]
    BotVersion.objects.filter(pk=new.pk).update(retired=True)
    assert [v.pk for v in ladder.entrants("oceans11")] == [old.pk, other.pk]


def ladder_in_flight() -> list[Match]:
    return list(ladder.ladder_matches().filter(status__in=ladder.ACTIVE).order_by("id"))


def finish(match: Match) -> list[int]:
    with transaction.atomic():
        Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
    return dispatch.dispatch()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_the_ladder_takes_only_slots_no_waiting_tournament_match_wants(
    settings: SettingsWrapper,
) -> None:
    settings.LADDER_ENABLED, settings.LADDER_SLOTS, settings.TOURNAMENT_SLOTS = True, 1, 2
    versions = [first_legal("oceans11", f"bot{i}") for i in range(4)]
    assert len(dispatch.dispatch()) == 1, "one free slot, the ladder's budget"
    (first,) = ladder_in_flight()
    assert first.rated and first.duplicate and first.sent_at is not None
    assert first.seats.count() == 2 and first.tournament_id is None
    assert dispatch.dispatch() == [], "the ladder's budget is spent"

    tournament = competition_actions.create_tournament(
        None, "cup", "oceans11", versions[:3], seed=1
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)  # 3 matches; 1 slot free
    assert Match.objects.filter(tournament=tournament, sent_at__isnull=False).count() == 1
    # The ladder's match ends: its slot goes to the waiting tournament match, not the ladder.
    sent = finish(first)
    assert [m.tournament_id for m in Match.objects.filter(pk__in=sent)] == [tournament.pk]
    assert ladder_in_flight() == []
    for match in Match.objects.filter(tournament=tournament).order_by("number")[:2]:
        finish(match)
    # Nothing of the tournament waits any more: the free slot is the ladder's again.
    assert len(ladder_in_flight()) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_each_bot_sits_one_ladder_table_at_a_time_and_games_take_turns(
    settings: SettingsWrapper,
) -> None:
    settings.LADDER_ENABLED, settings.LADDER_SLOTS, settings.TOURNAMENT_SLOTS = True, 3, 3
    for i in range(3):
        first_legal("oceans11", f"o{i}")
    for i in range(2):
        first_legal("bigtwo", f"b{i}")
    assert len(dispatch.dispatch()) == 2, "three oceans11 bots fill one table, bigtwo one"
    tables = ladder_in_flight()
    assert sorted(m.game for m in tables) == ["bigtwo", "oceans11"]
    seats = Seat.objects.filter(match__in=tables).values_list("version_id", flat=True)
    assert len(set(seats)) == len(seats) == 4
    bigtwo = next(m for m in tables if m.game == "bigtwo")
    assert bigtwo.seats.count() == 2, "fewer entrants than the default 4 seats: a smaller table"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_pausing_a_game_cancels_its_queued_matches_and_makes_no_more(
    settings: SettingsWrapper,
) -> None:
    queued = one_queued_ladder_match(settings)
    out = StringIO()
    call_command("ladder", "pause", "oceans11", stdout=out)
    assert "oceans11: paused" in out.getvalue()
    queued.refresh_from_db()
    assert queued.status == Match.Status.CANCELLED
    assert dispatch.dispatch() == [] and ladder_in_flight() == []
    call_command("ladder", "resume", "oceans11", stdout=StringIO())
    assert len(ladder_in_flight()) == 1, "resuming fills the slot again"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_nothing_is_played_while_the_ladder_is_off(settings: SettingsWrapper) -> None:
    settings.LADDER_ENABLED = False
    for i in range(2):
        first_legal("oceans11", f"o{i}")
    assert dispatch.dispatch() == [] and ladder_in_flight() == []


@pytest.mark.django_db
def test_the_plan_command_says_what_would_play_next_and_why(settings: SettingsWrapper) -> None:
    settings.LADDER_ENABLED = True
    seasoned = first_legal("oceans11", "seasoned")
    Rating.objects.create(bot=seasoned.bot, game="oceans11", elo=1700, deviation=40, matches=80)
    first_legal("oceans11", "newcomer")
    first_legal("oceans11", "other")
    out = StringIO()
    call_command("ladder", "plan", "--game", "oceans11", "--tables", "1", stdout=out)
    text = out.getvalue()
    assert "narrow the intervals of the differences between their players most" in text
    assert "oceans11: tables of 2, 3 entrants, 0 playing now" in text
    assert "1. newcomer v1 (1500 ±350 -> ±" in text, text
    assert Match.objects.count() == 0, "planning plays nothing"


@pytest.mark.django_db
def test_the_ladder_reads_the_rating_the_pages_show() -> None:
    """The field pass's view where a bot has one (the figure the board, the bot page and
    the API show), its stored own rating where no pass has seen it yet."""
    passed, fresh = (first_legal("oceans11", name) for name in ("passed", "fresh"))
    rating = Rating.objects.create(
        bot=passed.bot, game="oceans11", elo=1700, deviation=40, units=90, matches=80
    )
    FieldRating.objects.create(rating=rating, elo=1640.0, deviation=61.0, fitted_at=timezone.now())
    Rating.objects.create(bot=fresh.bot, game="oceans11", elo=1550, deviation=90, units=12)
    seen = {p.key: (p.mu, p.sigma) for p in ladder.players([passed, fresh])}
    assert seen[passed.pk] == (1640.0, 61.0)
    assert seen[fresh.pk] == (1550.0, 90.0)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_a_new_version_of_a_settled_bot_plays_first(settings: SettingsWrapper) -> None:
    settings.LADDER_ENABLED, settings.LADDER_SLOTS, settings.TOURNAMENT_SLOTS = True, 1, 1
    veteran, *others = [first_legal("oceans11", name) for name in ("veteran", "b", "c")]
    for version in (veteran, *others):
        Rating.objects.create(
            bot=version.bot, game="oceans11", elo=1500, deviation=40, units=300, matches=300
        )
    assert dispatch.dispatch() == [], "every rating is settled: nothing to learn"
    newer = upload(veteran.bot, "# v2: the same bot, new code\n")
    dispatch.dispatch()
    (match,) = ladder_in_flight()
    assert newer.pk in set(match.seats.values_list("version_id", flat=True))


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_a_new_broker_cancels_queued_ladder_matches_rather_than_resend_them(
    settings: SettingsWrapper,
) -> None:
    queued = one_queued_ladder_match(settings)
    out = StringIO()
    call_command("resend_queued", stdout=out)
    assert "1 queued ladder matches cancelled" in out.getvalue()
    queued.refresh_from_db()
    assert queued.status == Match.Status.CANCELLED


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_broker", "ten_processes")
def test_the_admin_pauses_a_ladder_as_the_command_does(settings: SettingsWrapper) -> None:
    queued = one_queued_ladder_match(settings)
    admin = User.objects.create_superuser("operator", password="operator-password-1")
    client = Client()
    client.force_login(admin)
    row = ladder.ladder_of("oceans11")
    answer = client.post(
        "/admin/tournaments/ladder/", {"action": "pause", "_selected_action": [row.pk]}
    )
    assert answer.status_code == 302
    row.refresh_from_db()
    queued.refresh_from_db()
    assert row.paused and queued.status == Match.Status.CANCELLED
    assert "paused" in client.get("/admin/tournaments/ladder/").content.decode()
