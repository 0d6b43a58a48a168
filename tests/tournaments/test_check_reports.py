"""A check report an author can act on (issue 34): seats, games and steps counted from 1
as the replay counts them, the opponents named by seat, the clocks stated, every fault
with the message the bot sent, a crash's traceback said once; the same through the API.
And an upload of one source file of any language by any name (Java excepted, and said)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.tournaments.test_uploads_checks import check, misbehaving
from tournaments.bots import bot_actions
from tournaments.bots.uploads import UploadError, read_upload
from tournaments.models import BotVersion
from tournaments.play import version_checks

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

ILLEGAL = 'print(json.dumps({"type": "action", "action": ["Xx"]}), flush=True); continue'


@pytest.fixture(autouse=True)
def short_clocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        version_checks, "CHECK_TIME_CONTROL", {"startup_s": 5, "move_s": 0.3, "bank_s": 0.2}
    )
    monkeypatch.setattr(version_checks, "EXIT_GRACE_S", 0.5)


def test_each_check_game_names_the_seats_and_opponents_from_one() -> None:
    report = check("bigtwo", misbehaving(2, ILLEGAL))
    assert report["time_control"] == {"startup_s": 5, "move_s": 0.3, "bank_s": 0.2}
    for played in report["matches"]:
        seat = played["seat_number"]
        assert seat == played["seat"] + 1
        assert [o["seat_number"] for o in played["opponents"]] == [
            n for n in range(1, played["players"] + 1) if n != seat
        ]
        assert {o["name"] for o in played["opponents"]} == {"house:random"}
        (line,) = played["fault_lines"]
        assert line.startswith(f"illegal action (with {played['players']} players, seat {seat}")
        step = re.search(r", game 1, step (\d+)\)", line)
        assert step and int(step[1]) >= 2  # its second decision, counted from 1
        assert line.endswith('the bot sent: {"type": "action", "action": ["Xx"]}')


def test_a_crash_gives_its_traceback_once_and_each_game_its_line() -> None:
    report = check("oceans11", misbehaving(2, "{}['the-missing-key']"))
    assert report["reason"].count("Traceback (most recent call last)") == 1
    assert "KeyError: 'the-missing-key'" in report["reason"]
    lines = [line for played in report["matches"] for line in played["fault_lines"]]
    assert len(lines) == len(report["matches"])  # it crashes in every check game
    for line in lines:
        assert re.match(r"crashed \(with 2 players, seat [12](, variant [a-z-]+)?, game 1", line)
        assert "Traceback" not in line and "\n" not in line


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("local_sandbox")
def test_the_api_gives_the_owner_the_same_report() -> None:
    user = User.objects.create_user("owner", password="a long password")
    bot = bot_actions.create_bot(user, "bigtwo", "illegal")
    client = APIClient()
    client.force_authenticate(user)
    file = SimpleUploadedFile("illegal.py", misbehaving(2, ILLEGAL).encode())
    posted = client.post(f"/api/bots/{bot.pk}/versions/", {"file": file}, format="multipart")
    assert posted.status_code == 201, posted.content
    version = BotVersion.objects.get()
    report: dict[str, Any] = client.get(f"/api/versions/{version.pk}/").json()["check_report"]
    assert report == version.check_report
    assert report["time_control"] == {"startup_s": 5, "move_s": 0.3, "bank_s": 0.2}
    first = report["matches"][0]
    assert first["seat_number"] == first["seat"] + 1 and first["opponents"]
    assert first["fault_lines"][0].endswith('the bot sent: {"type": "action", "action": ["Xx"]}')


@pytest.mark.parametrize(
    ("filename", "entry"),
    [("strategy.cpp", "main.cpp"), ("my_bot.rs", "main.rs"), ("bot.js", "main.js"),
     ("Player.go", "main.go"), ("anything.py", "main.py"), ("main.cpp", "main.cpp")],
)  # fmt: skip
def test_one_source_file_of_any_name_is_stored_as_its_entry(filename: str, entry: str) -> None:
    bundle = read_upload(filename, b"// a bot\n" if entry != "main.py" else b"# a bot\n")
    assert list(bundle.files) == [entry]


def test_a_java_file_must_be_main_java_and_the_refusal_says_so() -> None:
    with pytest.raises(UploadError) as refused:
        read_upload("Player.java", b"public class Player {}\n")
    said = str(refused.value)
    assert "cannot tell what 'Player.java' is" in said and "Java: Main.java" in said
    for suffix in (".cpp", ".go", ".js", ".py", ".rs"):
        assert suffix in said
