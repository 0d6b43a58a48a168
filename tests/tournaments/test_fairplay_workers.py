"""Issue 43: the rotation-order audit over results that real Celery workers played and
stored: a bot that carries each deal to its later rotations through a shared folder (the
local backend lets it: a perfect channel, as the host's caches are in Docker) is flagged,
its honest tablemates are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import transaction

from tests.tournaments.conftest import Workers, first_legal, uploaded, wait_for
from tournaments.competitions import competition_actions
from tournaments.fairplay import flags
from tournaments.models import FairPlayFlag, Match, Tournament

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

#: A Big Two bot that plays as conftest's FIRST_LEGAL (it passes whenever it may) unless
#: the deal came before: at each deal's end it writes its hand into FOLDER under the name
#: of the other seat's hand (game_over reveals both); a later rotation finds its own hand
#: there, so it knows the deal and the opponent's cards, and then beats tricks it would
#: have passed (the weakest play that beats).
CARRIER = """\
import json, os, sys
FOLDER = %(folder)r
os.makedirs(FOLDER, exist_ok=True)
def name(cards):
    return os.path.join(FOLDER, "-".join(sorted(cards)))
known = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        if known is None:
            known = os.path.exists(name(message["observation"]["hand"]))
        legal = message["legal"]
        choice = 1 if known and len(legal) > 1 and legal[0] == "pass" else 0
        print(json.dumps({"type": "action", "action": choice}), flush=True)
    elif message["type"] == "game_over":
        seat = message["seat"]
        for deal in message["revealed"].get("deals", []):
            with open(name(deal["dealt"][1 - seat]), "w") as carried:
                carried.write(json.dumps(deal["dealt"][seat]))
        known = None
    elif message["type"] == "match_over":
        break
"""


def finished(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status == Tournament.Status.FINISHED


def test_workers_results_flag_the_bot_that_carries_deals_and_no_honest_one(
    workers: Workers, tmp_path: Path
) -> None:
    honest = [first_legal("bigtwo", "honest-a"), first_legal("bigtwo", "honest-b")]
    carrier = uploaded("bigtwo", "carrier", CARRIER % {"folder": str(tmp_path / "carried")})
    tournament = competition_actions.create_tournament(
        None,
        "audited",
        "bigtwo",
        [*honest, carrier],
        table_size=2,
        games_per_pairing=4,
        rounds=5,
        duplicate=True,
        seed=43,
    )
    workers.start("solo")
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    wait_for(lambda: finished(tournament), 300, "the 15 matches to be played")
    assert not Match.objects.filter(tournament=tournament).exclude(status="done").exists()
    assert any(tmp_path.joinpath("carried").iterdir()), "the channel carried hands"

    found = flags.audit_rotations("bigtwo")
    assert found.tested == 3 and found.flagged == [carrier.pk]
    flag = FairPlayFlag.objects.get()
    assert flag.version_id == carrier.pk and flag.deals == 40 and flag.matches == 10
    assert flag.p_value <= flag.threshold and flag.effect > 0
    assert flag.evidence["better"] > flag.evidence["worse"]
