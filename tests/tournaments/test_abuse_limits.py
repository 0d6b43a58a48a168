"""Issue 14, items 3 to 5 in-process: the client's address behind proxies, one limit for
web and API sign-ups, password rules, sign-in lockout on every path, JSON depth, and
uploads held in memory."""

from __future__ import annotations

import io
import json
import re
import runpy
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import InMemoryUploadedFile, SimpleUploadedFile
from django.http.multipartparser import MultiPartParser
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from tournaments.bots import bot_actions
from tournaments.config.env import SettingError
from tournaments.guard import boundedjson
from tournaments.guard.clients import client_address
from tournaments.guard.requestlimits import CappedMemoryUploadHandler
from tournaments.models import Bot

PASSWORD = "the right long password"


@pytest.fixture(autouse=True)
def quick_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def with_rate(settings: Any, scope: str, rate: str) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], scope: rate}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "1.2.3.4", "10.0.0.9"),  # no proxy: the header is the client's invention
        (1, "1.2.3.4", "1.2.3.4"),
        (1, "6.6.6.6, 1.2.3.4", "1.2.3.4"),  # the client's own entry is ignored
        (2, "6.6.6.6, 1.2.3.4, 10.0.0.2", "1.2.3.4"),
        (2, "1.2.3.4", "10.0.0.9"),  # fewer hops than proxies: not through them
        (1, "not an address", "10.0.0.9"),
    ],
)
def test_the_client_address_believes_only_the_trusted_proxies(
    settings: Any, proxies: int, forwarded: str, expected: str
) -> None:
    settings.TRUSTED_PROXIES = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == expected


@pytest.mark.django_db
def test_web_and_api_sign_ups_share_one_limit(settings: Any) -> None:
    with_rate(settings, "registrations", "2/day")
    api = APIClient()
    made = api.post("/api/register/", {"username": "ann", "password": PASSWORD}, format="json")
    assert made.status_code == 201
    web = Client()
    form = {"username": "bob", "password1": PASSWORD, "password2": PASSWORD}
    assert web.post("/accounts/signup/", form).status_code == 302
    refused = web.post("/accounts/signup/", {**form, "username": "cy"})
    assert refused.status_code == 429 and "try again in about" in refused.content.decode()
    again = api.post("/api/register/", {"username": "dee", "password": PASSWORD}, format="json")
    assert again.status_code == 429
    assert sorted(User.objects.values_list("username", flat=True)) == ["ann", "bob"]


@pytest.mark.django_db
@pytest.mark.parametrize("password", ["a", "12345678", "password123", "ada-lovelace-x"])
def test_weak_passwords_are_refused_on_web_and_api(password: str) -> None:
    api = APIClient().post(
        "/api/register/", {"username": "ada-lovelace", "password": password}, format="json"
    )
    assert api.status_code == 400 and "password" in api.json()
    form = {"username": "ada-lovelace", "password1": password, "password2": password}
    web = Client().post("/accounts/signup/", form)
    assert web.status_code == 200 and "password" in web.content.decode().lower()
    assert not User.objects.exists()


def token_attempt(password: str) -> Any:
    return APIClient().post("/api/token/", {"username": "owner", "password": password})


def web_attempt(password: str) -> Any:
    return Client().post("/accounts/login/", {"username": "owner", "password": password})


def admin_attempt(password: str) -> Any:
    return Client().post("/admin/login/", {"username": "owner", "password": password})


def session_attempt(password: str) -> Any:
    return Client().post("/api/auth/login/", {"username": "owner", "password": password})


@pytest.mark.django_db
@pytest.mark.parametrize("attempt", [token_attempt, web_attempt, admin_attempt, session_attempt])
def test_every_sign_in_path_locks_out_after_the_failure_limit(settings: Any, attempt: Any) -> None:
    User.objects.create_user("owner", password=PASSWORD, is_staff=True)
    failures = [attempt(f"wrong guess {i}").status_code for i in range(settings.AXES_FAILURE_LIMIT)]
    assert 429 not in failures[:-1]
    refused = attempt(PASSWORD)
    assert refused.status_code == 429
    assert "Too many failed sign-ins" in refused.content.decode()
    assert int(refused["Retry-After"]) == settings.AXES_COOLOFF_TIME * 3600


@pytest.mark.django_db
def test_the_right_password_still_works_below_the_limit(settings: Any) -> None:
    User.objects.create_user("owner", password=PASSWORD)
    for i in range(settings.AXES_FAILURE_LIMIT - 1):
        assert token_attempt(f"wrong {i}").status_code == 400
    assert token_attempt(PASSWORD).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("nesting", [33, 100_000])
def test_deeply_nested_json_is_a_400(nesting: int) -> None:
    user = User.objects.create_user("owner", password=PASSWORD)
    client = APIClient()
    client.force_authenticate(user)
    body = "[" * nesting + "]" * nesting
    answer = client.post("/api/tournaments/", body, content_type="application/json")
    assert answer.status_code == 400
    assert "nested more than 32" in answer.json()["detail"]


def test_the_depth_scan_ignores_brackets_in_strings() -> None:
    assert boundedjson.depth('{"a": ["[[[[", {"b": "]]]\\"[["}]}') == 3
    assert boundedjson.loads('{"a": "' + "[" * 100 + '"}') == {"a": "[" * 100}
    with pytest.raises(boundedjson.TooDeep):
        boundedjson.loads("[" * 33 + "]" * 33)


def test_an_uploaded_file_stays_in_memory_cut_one_byte_past_the_limit(settings: Any) -> None:
    limit = settings.BOT_UPLOAD_MAX_BYTES
    content = b"#" * (limit + 200_000)
    body = (
        b'--XX\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n'
        b"Content-Type: text/plain\r\n\r\n" + content + b"\r\n--XX--\r\n"
    )
    meta = {"CONTENT_TYPE": "multipart/form-data; boundary=XX", "CONTENT_LENGTH": len(body)}
    request = RequestFactory().post("/")
    _, files = MultiPartParser(meta, io.BytesIO(body), [CappedMemoryUploadHandler(request)]).parse()
    upload = files["file"]
    assert isinstance(upload, InMemoryUploadedFile)
    assert upload.size == limit + 1 and upload.read() == content[: limit + 1]


def test_json_loads_gives_the_same_values_as_json() -> None:
    text = json.dumps({"a": [1, 2.5, None, True, {"b": "c"}]})
    assert boundedjson.loads(text) == json.loads(text)


SETTINGS_FILE = Path(__file__).resolve().parents[2] / "tournaments" / "config" / "settings.py"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("API_UPLOAD_RATE", "5/fortnight", "NUMBER/second|minute|hour|day"),
        ("LOGIN_LOCKOUT_BY", "username+password", "expected username, ip_address"),
        ("REQUEST_MAX_BYTES", "1000", "must be above BOT_UPLOAD_MAX_BYTES"),
        ("DJANGO_TRUSTED_PROXIES", "-1", "must not be negative"),
        ("LOGIN_FAILURE_LIMIT", "0", "must be positive"),
    ],
)
def test_a_bad_limit_setting_stops_the_start_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingError, match=re.escape(message)):
        runpy.run_path(str(SETTINGS_FILE))


def test_lockout_groups_are_read_as_axes_wants_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGIN_LOCKOUT_BY", "username+ip_address, ip_address")
    settings = runpy.run_path(str(SETTINGS_FILE))
    assert settings["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"], "ip_address"]


@pytest.mark.django_db
def test_web_and_api_uploads_share_one_limit_per_user(settings: Any) -> None:
    with_rate(settings, "uploads", "2/day")
    user = User.objects.create_user("owner", password=PASSWORD)
    bot = bot_actions.create_bot(user, "bigtwo", "mine")
    api = APIClient()
    api.force_authenticate(user)
    url = f"/api/bots/{bot.pk}/versions/"
    first = api.post(url, {"file": SimpleUploadedFile("bot.py", b"X = 1\n")}, format="multipart")
    assert first.status_code == 201
    web = Client()
    web.force_login(user)
    page = f"/bots/{bot.pk}/upload/"
    assert web.post(page, {"code": SimpleUploadedFile("bot.py", b"X = 2\n")}).status_code == 302
    refused = web.post(page, {"code": SimpleUploadedFile("bot.py", b"X = 3\n")})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    again = api.post(url, {"file": SimpleUploadedFile("bot.py", b"X = 4\n")}, format="multipart")
    assert again.status_code == 429
    assert bot.versions.count() == 2


@pytest.mark.django_db
def test_a_web_upload_over_the_limit_is_refused_in_plain_words(settings: Any) -> None:
    user = User.objects.create_user("owner", password=PASSWORD)
    web = Client()
    web.force_login(user)
    big = b"#" * (settings.BOT_UPLOAD_MAX_BYTES + 50_000)
    form = {"game": "bigtwo", "name": "big", "code": SimpleUploadedFile("bot.py", big)}
    page = web.post("/bots/upload/", form)
    assert page.status_code == 200 and "the limit is" in page.content.decode()
    assert not Bot.objects.exists()
