"""Hostile uploads: each is refused with a 4xx that says what was wrong, and nothing is stored.

The first half calls tournaments.bots.uploads directly; the second sends the same files through
the API and checks that no version (and no check) came of them. A bot that crashes at
start passes the upload and is rejected by its check, with the traceback for its owner.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tournaments.bots import bot_actions
from tournaments.bots.uploads import Limits, UploadError, UploadTooLarge, read_upload
from tournaments.models import Bot, BotVersion

LIMITS = Limits(upload_bytes=1 << 20, entries=50, unpacked_bytes=4 << 20)
MAIN = b"import botkit\nbotkit.run(lambda observation, legal: 0)\n"


def zipped(*entries: tuple[str, bytes] | zipfile.ZipInfo, data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in entries:
            if isinstance(entry, zipfile.ZipInfo):
                archive.writestr(entry, data)
            else:
                archive.writestr(entry[0], entry[1])
    return buffer.getvalue()


def special(name: str, mode: int, data: bytes = b"") -> bytes:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return zipped(("main.py", MAIN), info, data=data)


def zip_bomb() -> bytes:
    return zipped(("main.py", MAIN), ("padding.bin", b"\0" * (64 << 20)))


def bad_utf8_name() -> bytes:
    raw = zipped(("main.py", MAIN), ("AB.py", b"x = 1\n"))
    return raw.replace(b"AB.py", b"\xff\xfe.py")


HOSTILE: dict[str, tuple[str, Callable[[], bytes], str]] = {
    "zip bomb": ("bot.zip", zip_bomb, "unpacks to more than"),
    "path traversal": ("bot.zip", lambda: zipped(("main.py", MAIN), ("../x.py", b"")), "'..'"),
    "absolute path": ("bot.zip", lambda: zipped(("/etc/cron.d/x", b"")), "absolute path"),
    "symbolic link": ("bot.zip", lambda: special("link", stat.S_IFLNK | 0o777, b"/etc"), "link"),
    "device file": ("bot.zip", lambda: special("dev", stat.S_IFCHR | 0o600), "device"),
    "huge file": ("bot.py", lambda: b"#" * (2 << 20), "the limit is"),
    "garbage bytes as .py": ("bot.py", lambda: os.urandom(4096) + b"\xff", "not UTF-8"),
    "garbage bytes as .zip": ("bot.zip", lambda: b"\x00garbage" * 100, "not a zip"),
    "a broken zip": ("bot.zip", lambda: b"PK\x03\x04" + b"\x17" * 300, "cannot be read"),
    "no main.py": ("bot.zip", lambda: zipped(("bot.py", MAIN)), "no entry file"),
    "name not UTF-8": ("bot.zip", bad_utf8_name, "not valid UTF-8"),
    "too many entries": (
        "bot.zip",
        lambda: zipped(("main.py", MAIN), *[(f"f{i}.txt", b"") for i in range(250)]),
        "entries",
    ),
    "a file that is also a folder": (
        "bot.zip",
        lambda: zipped(("main.py", MAIN), ("lib", b""), ("lib/util.py", b"")),
        "both as a file and a folder",
    ),
    "a control character in a name": (
        "bot.zip",
        lambda: zipped(("main.py", MAIN), ("evil\n.py", b"")),
        "control character",
    ),
    "a name nested too deep": (
        "bot.zip",
        lambda: zipped(("main.py", MAIN), ("a/" * 20 + "x.py", b"")),
        "too long or too deep",
    ),
    "syntax error": ("bot.py", lambda: b"def broken(:\n", "syntax error"),
    "neither .py nor .zip": ("bot.exe", lambda: b"MZ\x90\x00", "cannot tell"),
    "empty": ("bot.py", lambda: b"", "empty"),
    "a binary entry file": ("main.cpp", lambda: b"\x7fELF\x00\xff", "not UTF-8 text"),
    "NUL bytes in an entry file": ("Main.java", lambda: b"class Main {}\0", "NUL bytes"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_it_refuses_a_hostile_upload_saying_why(case: str) -> None:
    filename, make, message = HOSTILE[case]
    with pytest.raises(UploadError, match=message):
        read_upload(filename, make(), LIMITS)


def test_a_huge_upload_is_too_large_rather_than_bad() -> None:
    with pytest.raises(UploadTooLarge):
        read_upload("bot.py", b"#" * (2 << 20), LIMITS)


def test_a_zip_bomb_is_stopped_while_decompressing_not_after() -> None:
    """An entry that lies about its size is cut off at the limit when read."""
    raw = bytearray(zipped(("main.py", MAIN), ("bomb.bin", b"\0" * (8 << 20))))
    # Rewrite the declared size of bomb.bin in the central directory to 1 byte.
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 24 : central + 28] = (1).to_bytes(4, "little")
    with pytest.raises(UploadError, match=r"unpacks to more than|cannot be read"):
        read_upload("bot.zip", bytes(raw), LIMITS)


def test_a_single_python_file_becomes_main_py() -> None:
    bundle = read_upload("mine.py", MAIN, LIMITS)
    assert bundle.files == {"main.py": MAIN}


@pytest.mark.parametrize("entry", ["main.cpp", "main.rs", "Main.java", "main.js", "main.go"])
def test_a_single_entry_file_of_another_language_is_a_bot(entry: str) -> None:
    source = b"// a bot\n"
    assert read_upload(f"C:\\bots\\{entry}", source, LIMITS).files == {entry: source}
    assert read_upload(entry, source, LIMITS).files == {entry: source}


def test_a_zip_of_a_go_bot_in_a_folder_keeps_its_bot_json() -> None:
    files = (("bot/main.go", b"package main\n"), ("bot/bot.json", b'{"language": "go"}'))
    assert sorted(read_upload("bot.zip", zipped(*files), LIMITS).files) == ["bot.json", "main.go"]


def test_a_zip_of_one_folder_is_read_from_inside_it() -> None:
    bundle = read_upload(
        "bot.zip", zipped(("bot/main.py", MAIN), ("bot/lib/util.py", b"X = 1\n")), LIMITS
    )
    assert sorted(bundle.files) == ["lib/util.py", "main.py"]


def test_the_same_code_gives_the_same_hash_whatever_the_zip_looks_like() -> None:
    single = read_upload("a.py", MAIN, LIMITS)
    stored = zipfile.ZipInfo("main.py", date_time=(2020, 5, 5, 5, 5, 5))
    archive = read_upload("b.zip", zipped(stored, data=MAIN), LIMITS)
    assert single.content_hash == archive.content_hash
    assert single.code == archive.code


# Through the API: every refusal is a 4xx with the reason, and nothing is stored.


@pytest.fixture
def owner_bot(db: None) -> tuple[APIClient, Bot]:
    user = User.objects.create_user("owner", password="a long password")
    client = APIClient()
    client.force_authenticate(user)
    return client, bot_actions.create_bot(user, "bigtwo", "mine")


def upload(client: APIClient, bot: Bot, filename: str, data: bytes) -> Any:
    file = SimpleUploadedFile(filename, data, content_type="application/octet-stream")
    return client.post(f"/api/bots/{bot.pk}/versions/", {"file": file}, format="multipart")


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_api_refuses_a_hostile_upload_and_stores_nothing(
    case: str,
    owner_bot: tuple[APIClient, Bot],
    django_capture_on_commit_callbacks: Any,
) -> None:
    client, bot = owner_bot
    filename, make, message = HOSTILE[case]
    with django_capture_on_commit_callbacks() as callbacks:
        response = upload(client, bot, filename, make())
    assert 400 <= response.status_code < 500, response.content
    body = response.json()
    assert message in (body["detail"] if response.status_code == 413 else body["file"][0])
    assert BotVersion.objects.count() == 0
    assert callbacks == []  # no check was queued


def test_an_upload_over_the_limit_is_refused_with_413(owner_bot: tuple[APIClient, Bot]) -> None:
    client, bot = owner_bot
    response = upload(client, bot, "bot.py", b"#" * (2 << 20))
    assert response.status_code == 413
    assert BotVersion.objects.count() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("local_sandbox")
@pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")
def test_a_bot_that_crashes_at_start_is_rejected_with_its_traceback_for_its_owner() -> None:
    user = User.objects.create_user("owner", password="a long password")
    other = User.objects.create_user("other", password="a long password")
    bot = bot_actions.create_bot(user, "bigtwo", "crasher")
    client = APIClient()
    client.force_authenticate(user)
    source = b"import sys\n\ndef start():\n    raise RuntimeError('no cards today')\n\nstart()\n"
    response = upload(client, bot, "crash.py", source)  # the check runs in-process here
    assert response.status_code == 201
    version = BotVersion.objects.get()
    assert version.status == BotVersion.Status.REJECTED
    mine = client.get(f"/api/versions/{version.pk}/").json()
    assert mine["status"] == "rejected"
    assert mine["check_report"]["reason"].startswith("crashed (with 2 players, seat ")
    assert "at start-up" in mine["check_report"]["reason"]
    assert "RuntimeError: no cards today" in mine["check_report"]["reason"]
    assert "line 4, in start" in mine["check_report"]["log"]
    client.force_authenticate(other)
    theirs = client.get(f"/api/versions/{version.pk}/")
    assert theirs.json()["check_report"] is None
    assert b"no cards today" not in theirs.content
    # A rejected version may not enter a tournament.
    entry = {"name": "cup", "game": "bigtwo", "participants": [version.pk], "table_size": 2}
    refused = client.post("/api/tournaments/", entry, format="json")
    assert refused.status_code == 400


def test_a_giant_request_is_refused_before_its_body_is_read(
    owner_bot: tuple[APIClient, Bot],
) -> None:
    client, bot = owner_bot
    response = upload(client, bot, "bot.zip", b"\0" * (6 << 20))
    assert response.status_code == 413
    assert "the request is" in response.json()["detail"]
    assert BotVersion.objects.count() == 0


def test_folder_entries_are_accepted_and_not_stored() -> None:
    raw = zipped(zipfile.ZipInfo("./"), zipfile.ZipInfo("lib/"), ("main.py", MAIN), data=b"")
    assert read_upload("bot.zip", raw, LIMITS).files == {"main.py": MAIN}
