"""A stored bot version whose zip cannot be unpacked fails its match at once, with the seat
and the reason recorded, and starts no bot: no retry could ever play it (docs/tournaments.md).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest
from django.db import transaction
from pytest_django.fixtures import Settings as SettingsWrapper

from sandbox.local import LocalBackend
from tests.tournaments.conftest import FIRST_LEGAL, first_legal
from tests.tournaments.recording import RecordingBackend
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.models import Bot, BotVersion, Match, RatingHistory, Tournament
from tournaments.play import runner, tasks, version_checks

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

SOURCE = (FIRST_LEGAL % {"delay": 0}).encode()


def stored_zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def bad_crc() -> bytes:
    code = stored_zip({"main.py": SOURCE})
    return code.replace(b"json.loads", b"JSON.LOADS", 1)  # the stored CRC no longer matches


BROKEN = {
    "garbage": b"this is not a zip at all",
    "truncated": stored_zip({"main.py": SOURCE})[:60],
    "bad crc": bad_crc(),
    "leaves its folder": stored_zip({"main.py": SOURCE, "../escape.py": b"x = 1\n"}),
}


@pytest.mark.parametrize("name", BROKEN)
def test_unpack_refuses_a_broken_zip_as_unreadable_code(name: str, tmp_path: Path) -> None:
    with pytest.raises(runner.UnreadableCode, match=r"upload the bot again|leaves its folder"):
        runner.unpack(BROKEN[name], tmp_path / "bot")


def broken_version(code: bytes) -> BotVersion:
    bot = Bot.objects.create(owner=None, game="bigtwo", name="broken")
    digest = hashlib.sha256(code).hexdigest()
    return bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", ["bad crc", "truncated"])
def test_a_match_with_an_unreadable_bot_fails_at_once_and_starts_no_bot(
    name: str, settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.JUDGE_SANDBOX = "local"
    recording = RecordingBackend()
    monkeypatch.setattr(tasks, "sandbox_backend", lambda: recording)
    versions = [first_legal("bigtwo", "fine"), broken_version(BROKEN[name])]
    tournament = competition_actions.create_tournament(
        None, "cup", "bigtwo", versions, table_size=2, games_per_pairing=1, seed=5
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    match = Match.objects.get(tournament=tournament)
    assert (match.status, match.attempt) == (Match.Status.FAILED, 1)
    seat = match.seat_versions().index(versions[1])
    assert f"seat {seat} (broken v1): the stored code is not a readable zip" in match.failure
    assert "upload the bot again" in match.failure
    assert recording.labels == []
    assert RatingHistory.objects.count() == 0
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_the_check_rejects_unreadable_code_before_playing(tmp_path: Path) -> None:
    def no_sandbox() -> LocalBackend:
        raise AssertionError("the check started a bot for code it cannot unpack")

    report = version_checks.run_check("bigtwo", BROKEN["bad crc"], 1, no_sandbox)
    assert report["passed"] is False and report["verdict"] == "rejected"
    assert "not a readable zip archive" in report["reason"]
    assert "Bad CRC-32" in report["reason"]
    assert report["problems"] == [report["reason"]]
