"""What a duel's dispatch costs (issue 45, bench/duels/throughput.py): a duel whose request
names no round size takes the server's DUEL_PAIRS_PER_ROUND; a transaction that wakes the
dispatcher several times runs it once; a house bot's folder is made once per worker
process, not copied into every match."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from pytest_django.fixtures import Settings as SettingsWrapper

from judge.bot_folders import content_hash, house_bot
from tournaments import wake
from tournaments.bots import bot_actions
from tournaments.competitions import duels
from tournaments.competitions.duels import DuelRequest
from tournaments.models import Bot, BotVersion, Match
from tournaments.play import dispatch, runner


def _version(owner: User, policy: str) -> BotVersion:
    bot = Bot.objects.create(owner=owner, game="oceans11", name=f"my-{policy}", house_policy=policy)
    return bot_actions.add_version(bot, b"", f"{owner.pk}:{policy}", BotVersion.Status.ACCEPTED)


@pytest.mark.django_db(transaction=True)
def test_a_duel_naming_no_round_size_takes_the_servers(settings: SettingsWrapper) -> None:
    settings.DUEL_PAIRS_PER_ROUND = 7
    owner = User.objects.create(username="duellist")
    b, a = _version(owner, "greedy"), bot_actions.house_version("oceans11", "random")
    with transaction.atomic():  # nothing plays: the matches stay queued (no worker)
        duel = duels.create_duel(owner, DuelRequest(b=b, a=a))
        named = duels.create_duel(owner, DuelRequest(b=b, a=a, pairs_per_round=3))
    assert duel.pairs_per_round == 7 and named.pairs_per_round == 3
    assert set(Match.objects.filter(duel=duel).values_list("games", flat=True)) == {7}
    assert set(Match.objects.filter(duel=named).values_list("games", flat=True)) == {3}


@pytest.mark.django_db(transaction=True)
def test_a_transaction_wakes_the_dispatcher_once_however_often_it_asks() -> None:
    runs: list[int] = []

    def counted(**_: object) -> None:
        runs.append(1)

    wake.work_changed.connect(counted, dispatch_uid="counted")
    try:
        with transaction.atomic():
            wake.dispatch_after_commit()  # a duel's next round queued
            dispatch.dispatch_after_commit()  # its match's process freed
            assert not runs
        assert len(runs) == 1
        # A request inside a savepoint rolled back goes with it; one outside still runs.
        with transaction.atomic():
            try:
                with transaction.atomic():
                    wake.dispatch_after_commit()
                    raise RuntimeError("rolled back")
            except RuntimeError:
                pass
            dispatch.dispatch_after_commit()
        assert len(runs) == 2
        with transaction.atomic():
            with transaction.atomic():
                wake.dispatch_after_commit()
            wake.dispatch_after_commit()  # the inner one's, released, still waits
        assert len(runs) == 3
        dispatch.dispatch_after_commit()  # no transaction: at once
        assert len(runs) == 4
    finally:
        wake.work_changed.disconnect(dispatch_uid="counted")


def test_a_house_bots_folder_is_made_once_per_process_as_a_fresh_one_would_be(
    tmp_path: Path,
) -> None:
    first = runner.house_folder("oceans11", "random")
    assert runner.house_folder("oceans11", "random") == first
    assert runner.house_folder("oceans11", "greedy") != first
    fresh = house_bot("oceans11", "random", tmp_path / "bot")
    assert content_hash(first) == fresh.info.content_hash
