"""A version that keeps faulting in rated play is taken off the ladder and its owner shown
why, with real workers on Redis and PostgreSQL (docs/ladder.md, "A version that keeps
faulting"): a Big Two bot that crashes only when the trick is a pair passes any check
that never meets one, then faults on the ladder."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, uploaded, wait_for
from tests.tournaments.test_ladder_workers import (
    after_a_ladder_match_ends_in,
    describe,
    ladder_on,
    made_after,
    seated,
)
from tournaments.bots import bot_actions
from tournaments.competitions import ladder, ladder_faults
from tournaments.errors import ServiceError
from tournaments.models import BotVersion, Match, Seat, bundle_code

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")
GAME = "bigtwo"

#: Plays the first legal action, but crashes whenever the trick to beat is a pair.
PAIR_CRASHER = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        trick = message["observation"]["trick"]
        if trick is not None and trick["kind"] == "pair":
            raise RuntimeError("no idea how to beat a pair")
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        break
"""

#: Leads or follows with a pair whenever it can (so the crasher meets pairs), else the
#: first legal action.
PAIR_LOVER = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        legal = message["legal"]
        pairs = [a for a in legal if isinstance(a, list) and len(a) == 2]
        print(json.dumps({"type": "action", "action": pairs[0] if pairs else 0}), flush=True)
    elif message["type"] == "match_over":
        break
"""


def test_a_bot_that_crashes_on_pairs_is_taken_off_and_only_its_owner_sees_why(
    workers: Workers, settings: SettingsWrapper
) -> None:
    ladder_on(workers, settings, slots=1, tournament_slots=1)
    owner = User.objects.create_user("alice", password="pw-alice-12345")
    User.objects.create_user("bob", password="pw-bob-12345")
    crasher = uploaded(GAME, "pair-crasher", PAIR_CRASHER)
    crasher.bot.owner = owner
    crasher.bot.save(update_fields=["owner"])
    for i in range(3):
        uploaded(GAME, f"pair-lover-{i}", PAIR_LOVER)
    workers.start_with_reaper("solo")

    def taken_off() -> bool:
        crasher.refresh_from_db()
        return crasher.off_ladder_at is not None

    wait_for(taken_off, 300, "the pair crasher to be taken off the ladder")
    assert crasher.off_ladder_at is not None
    played = Match.objects.filter(
        seats__version=crasher,
        status=Match.Status.DONE,
        rated=True,
        finished_at__lte=crasher.off_ladder_at,
    )
    assert 3 <= played.count() <= 5
    assert ladder.entrant_of(crasher.bot) is None
    record = ladder_faults.recent_faults(crasher)
    assert record.faulted >= 3 and record.last is not None

    cutoff = after_a_ladder_match_ends_in(GAME)
    wait_for(lambda: len(made_after(cutoff, GAME)) >= 1, 180, "a ladder match after it")
    later = made_after(cutoff, GAME)
    assert all(crasher.pk not in seated(m) for m in later), describe(later)

    page = f"/bots/{crasher.bot_id}/"
    alices = Client()
    alices.login(username="alice", password="pw-alice-12345")
    text = alices.get(page).content.decode()
    assert f"faulted in <strong>{record.faulted} of its last {record.of}</strong>" in text
    assert "no idea how to beat a pair" in text  # the traceback, from its stderr
    link = re.search(rf'href="/matches/{record.match_id}/#g(\d+)s(\d+)"', text)
    assert link, "a link to the faulting step of the replay"
    assert "Put v1 back on the ladder" in text

    told = alices.get(f"/api/versions/{crasher.pk}/").json()["ladder_faults"]
    assert told["faulted"] == record.faulted and told["off_ladder_at"]
    assert told["fault"]["bot"] is not None and told["match"] == record.match_id

    bobs = Client()
    bobs.login(username="bob", password="pw-bob-12345")
    assert bobs.get(f"/api/versions/{crasher.pk}/").json()["ladder_faults"] is None
    for client in (bobs, Client()):
        seen = client.get(page).content.decode()
        assert "faulted in" not in seen and "no idea how to beat a pair" not in seen
        assert "Not on the ladder." in seen
        assert client.post(f"/versions/{crasher.pk}/ladder/").status_code in (302, 404)
    crasher.refresh_from_db()
    assert crasher.off_ladder_at is not None  # neither bob nor a stranger may put it back

    answer = alices.post(f"/versions/{crasher.pk}/ladder/")
    assert answer.status_code == 302
    crasher.refresh_from_db()
    assert crasher.off_ladder_at is None and crasher.back_on_ladder_at is not None
    assert ladder.entrant_of(crasher.bot) == crasher
    assert ladder_faults.recent_faults(crasher).faulted == 0  # earlier faults count no more
    assert BotVersion.objects.get(pk=crasher.pk).off_ladder_at is None


def stored_match(version: BotVersion, faulted: bool, rated: bool = True) -> Match:
    """A finished match of ``version`` at seat 1 (beside a house bot at seat 0), with a
    crash of its own or a clean result, as lease.finish_match stores it."""
    house = bot_actions.house_version(GAME, "random")
    match = Match.objects.create(
        game=GAME, rated=rated, status=Match.Status.DONE, finished_at=timezone.now()
    )
    Seat.objects.create(match=match, index=0, version=house)
    seat = Seat.objects.create(match=match, index=1, version=version)
    if faulted:
        match.faults = [{"bot": 1, "kind": "closed", "reason": "it exited", "game": 0, "move": 2}]
        match.save(update_fields=["faults"])
    if rated:
        ladder_faults.after_rated_match(match, [seat])
    return match


@pytest.mark.django_db
def test_the_limit_counts_own_faults_in_the_last_rated_matches_only(
    settings: SettingsWrapper,
) -> None:
    settings.LADDER_FAULT_LIMIT, settings.LADDER_FAULT_MATCHES = 3, 5
    version = uploaded(GAME, "flaky", "print('hi')\n")
    for faulted in (True, False, True, False):
        stored_match(version, faulted)
    stored_match(version, True, rated=False)  # unrated: not counted
    version.refresh_from_db()
    assert version.off_ladder_at is None
    record = ladder_faults.recent_faults(version)
    assert (record.faulted, record.of, record.seat) == (2, 4, 1)
    assert record.last is not None and record.last["reason"] == "it exited"
    stored_match(version, True)
    version.refresh_from_db()
    assert version.off_ladder_at is not None  # 3 of its last 5


@pytest.mark.django_db
def test_a_bot_off_the_ladder_comes_back_with_a_new_version_not_an_older_one(
    settings: SettingsWrapper,
) -> None:
    settings.LADDER_FAULT_LIMIT, settings.LADDER_FAULT_MATCHES = 2, 2
    older = uploaded(GAME, "two-versions", "print('v1')\n")
    code, digest = bundle_code({"main.py": b"print('v2')\n"})
    newer = bot_actions.add_version(older.bot, code, digest, BotVersion.Status.ACCEPTED)
    stored_match(newer, True)
    stored_match(newer, True)
    newer.refresh_from_db()
    assert newer.off_ladder_at is not None
    assert older.bot_id not in ladder.entrant_bots(GAME)  # v1 does not stand in for v2
    code, digest = bundle_code({"main.py": b"print('v3')\n"})
    fixed = bot_actions.add_version(older.bot, code, digest, BotVersion.Status.ACCEPTED)
    assert ladder.entrant_of(older.bot) == fixed
    assert fixed.pk in {v.pk for v in ladder.entrants(GAME)}


@pytest.mark.django_db
def test_a_limit_of_zero_never_takes_a_version_off(settings: SettingsWrapper) -> None:
    settings.LADDER_FAULT_LIMIT = 0
    version = uploaded(GAME, "always-crashes", "print('hi')\n")
    for _ in range(5):
        stored_match(version, True)
    version.refresh_from_db()
    assert version.off_ladder_at is None
    with pytest.raises(ServiceError, match="not off the ladder"):
        ladder_faults.put_back(version)
