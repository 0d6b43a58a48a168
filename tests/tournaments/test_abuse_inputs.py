"""Issue 14, items 7 and 8: hostile inputs get a clear 4xx (never a 500), one name rule
for web and API, and downloads named by RFC 6266 (``filename*``) whatever the name."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from judge.bots import house_policy
from judge.players import PolicyChannel
from judge.referee import BotInfo, MatchSpec, play_match
from tournaments.bots import bot_actions, names
from tournaments.bots.uploads import UploadError, check_python
from tournaments.models import Bot, BotVersion, Match, Seat, bundle_code
from tournaments.play import replay_store
from tournaments.web.replays import ReplayError, requested_frames

BIG = "9" * 20


@pytest.fixture(autouse=True)
def quick_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def owner(db: None) -> User:
    return User.objects.create_user("owner", password="a long password 1")


def signed_in(user: User) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


def a_record() -> dict[str, Any]:
    spec = MatchSpec(game="oceans11", seed=3, players=2, options={}, duplicate=False)
    bots = [BotInfo(f"bot{i}") for i in range(2)]
    outcome = play_match(spec, bots, lambda i: PolicyChannel(house_policy("oceans11", "random", i)))
    return outcome.record


@pytest.mark.parametrize("text", ["²", "٣", "9" * 5000, "-1", " 1", "1e3", ""])
def test_replay_numbers_that_int_refuses_are_a_replay_error(text: str) -> None:
    record = a_record()
    with pytest.raises(ReplayError):
        requested_frames(record, text, "all")
    with pytest.raises(ReplayError):
        requested_frames(record, "0", text or "x")


@pytest.mark.django_db
def test_the_frames_view_answers_400_to_hostile_parameters() -> None:
    record = a_record()
    bot = Bot.objects.create(owner=None, game="oceans11", name="house")
    code, digest = bundle_code({"main.py": b"pass\n"})
    version = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
    match = Match.objects.create(game="oceans11", status=Match.Status.DONE, seed=3)
    replay_store.stored_replay(match.pk, record).save()
    Seat.objects.bulk_create([Seat(match=match, index=i, version=version) for i in range(2)])
    client = Client(raise_request_exception=False)
    for query in ("game=²", f"game={'9' * 5000}", f"game=0&seat={'9' * 5000}", "seat=²"):
        answer = client.get(f"/matches/{match.pk}/frames/?{query}")
        assert answer.status_code == 400, query
        assert "error" in answer.json()
    assert client.get(f"/matches/{match.pk}/frames/?game=0&seat=1").status_code == 200


@pytest.mark.parametrize("source", ["x = " + "1+" * 300_000 + "1", "x = " + "-" * 300_000 + "1"])
def test_code_the_compiler_cannot_hold_is_a_clear_upload_error(source: str) -> None:
    with pytest.raises(UploadError, match="nests or chains expressions too deeply"):
        check_python("main.py", source.encode())


def test_the_api_refuses_code_the_compiler_cannot_hold(owner: User) -> None:
    bot = bot_actions.create_bot(owner, "bigtwo", "deep")
    source = ("x = " + "1+" * 300_000 + "1\n").encode()
    upload = {"file": SimpleUploadedFile("bot.py", source[:1_000_000])}
    answer = signed_in(owner).post(f"/api/bots/{bot.pk}/versions/", upload, format="multipart")
    assert answer.status_code == 400
    assert "too deeply" in str(answer.json())


@pytest.mark.parametrize(
    "query",
    [f"bot={BIG}", f"version={BIG}", f"bot=-{BIG}", "bot=1.5", "bot=nan", "version=1e400"],
)
def test_ids_no_column_can_hold_are_a_400(owner: User, query: str) -> None:
    assert signed_in(owner).get(f"/api/matches/?{query}").status_code == 400


@pytest.mark.django_db
def test_twenty_digit_ids_in_paths_are_404() -> None:
    client = Client(raise_request_exception=False)
    for path in ("bots", "versions", "tournaments", "matches"):
        assert client.get(f"/{path}/{BIG}/").status_code == 404
        assert client.get(f"/api/{path}/{BIG}/").status_code == 404


#: Names refused everywhere, with the words of the reason.
BAD_NAMES = {
    "pаypal": "one script",  # a Cyrillic а among Latin letters
    "сор": "looks like a Latin one",  # every letter Cyrillic with a Latin twin
    "bot\u200bone": "ZERO WIDTH SPACE",
    "bot\u2060one": "WORD JOINER",
    "ab\ufe0f": "VARIATION SELECTOR",
    "my bot": "SPACE",
    "-dash": "start with a letter or a digit",
    "": "1 to 64",
}


@pytest.mark.parametrize("name", sorted(BAD_NAMES))
def test_one_name_rule_on_web_and_api(owner: User, name: str) -> None:
    api = signed_in(owner).post("/api/bots/", {"game": "bigtwo", "name": name}, format="json")
    assert api.status_code == 400
    assert BAD_NAMES[name] in str(api.json()["name"]) or not name
    web = Client()
    web.force_login(owner)
    form = {"game": "bigtwo", "name": name, "code": SimpleUploadedFile("bot.py", b"pass\n")}
    page = web.post("/bots/upload/", form)
    assert page.status_code == 200 and not Bot.objects.exists()


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("ｆｕｌｌｗｉｄｔｈ", "fullwidth"),
        ("Иван", "Иван"),
        ("漢字かな", "漢字かな"),
        ("éclair_2", "éclair_2"),
    ],
)
def test_names_are_stored_in_nfkc_form(raw: str, stored: str) -> None:
    assert names.checked_name(raw) == stored


def test_user_names_follow_the_rule_too(db: None) -> None:
    body = {"username": "аdmin", "password": "a long password 1"}  # Cyrillic а
    assert APIClient().post("/api/register/", body, format="json").status_code == 400
    form = {"username": "аdmin", "password1": "a long password 1", "password2": "a long password 1"}
    assert Client().post("/accounts/signup/", form).status_code == 200
    assert not User.objects.exists()


def test_a_non_ascii_name_downloads_with_filename_star(owner: User) -> None:
    bot = bot_actions.create_bot(owner, "bigtwo", "Ελληνικά")
    code, digest = bundle_code({"main.py": b"pass\n"})
    version = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
    answer = signed_in(owner).get(f"/api/versions/{version.pk}/code/")
    assert answer.status_code == 200
    header = answer["Content-Disposition"]
    assert header.isascii() and header.startswith("attachment; ")
    encoded = header.split("filename*=utf-8''")[1]
    assert unquote(encoded) == "Ελληνικά-v1.zip"
