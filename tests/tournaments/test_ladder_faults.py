"""A version that keeps faulting in rated play is taken off the ladder and its owner shown
why, with real workers on Redis and PostgreSQL (docs/ladder.md, "A version that keeps
faulting"): a Big Two bot that crashes only when the trick is a pair passes any check
that never meets one, then faults on the ladder."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import Workers, uploaded, wait_for
from tests.tournaments.test_ladder_workers import (
    after_a_ladder_match_ends_in,
    describe,
    ladder_on,
    made_after,
    seated,
)
from tournaments.competitions import ladder, ladder_faults
from tournaments.models import BotVersion, Match

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
