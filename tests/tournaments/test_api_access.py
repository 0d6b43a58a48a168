"""Three people against every route: the owner, another user and an anonymous visitor.

Each route is called by each person; the status is the one the rules give, and no answer
to the other two ever holds the owner's code, check log or match logs.
"""

from __future__ import annotations

import functools
import io
import json
import re
import zipfile
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from jsonschema import FormatChecker
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.tournaments.test_api_schema import json_schema
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.errors import ServiceError
from tournaments.models import Bot, BotVersion, Match, Seat, Tournament, bundle_code
from tournaments.play import replay_store

CODE_SECRET = "OWNER-CODE-7f3a"
CHECK_SECRET = "OWNER-CHECK-LOG-51c2"
LOG_SECRET = "OWNER-MATCH-LOG-9b0e"
SECRETS = (CODE_SECRET, CHECK_SECRET, LOG_SECRET)
SOURCE = f"# {CODE_SECRET}\nimport botkit\nbotkit.run(lambda observation, legal: 0)\n"


@pytest.fixture(autouse=True)
def quick_passwords(settings: Any) -> None:
    """Hashing passwords the slow, safe way would take most of this file's time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class World:
    owner: User
    other: User
    bot: Bot
    version: BotVersion
    tournament: Tournament
    done: Match
    running: Match
    staff: User


def accepted(bot: Bot, source: str, report: dict[str, Any] | None = None) -> BotVersion:
    code, digest = bundle_code({"main.py": source.encode()})
    version = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
    BotVersion.objects.filter(pk=version.pk).update(check_report=report or {})
    version.refresh_from_db()
    return version


def played(versions: list[BotVersion], status: str, logs: list[str]) -> Match:
    match = Match.objects.create(game="bigtwo", status=status, rated=False)
    for index, (version, log) in enumerate(zip(versions, logs, strict=True)):
        Seat.objects.create(match=match, index=index, version=version, log=log)
    if status == Match.Status.DONE:
        match.result = {"scores": [1, -1], "places": [1, 2], "games": []}
        match.finished_at = timezone.now()
        match.save()
        record = {"header": {"game": "bigtwo"}, "games": [{"hidden": "2s 2h"}]}
        replay_store.stored_replay(match.pk, record).save()
    return match


@pytest.fixture
def world(db: None) -> World:
    owner = User.objects.create_user("owner", password="owner's long password")
    other = User.objects.create_user("other", password="other's long password")
    staff = User.objects.create_user("staff", password="staff long password", is_staff=True)
    bot = bot_actions.create_bot(owner, "bigtwo", "mine")
    version = accepted(bot, SOURCE, {"passed": True, "log": CHECK_SECRET})
    rival = accepted(bot_actions.create_bot(other, "bigtwo", "theirs"), "print('hi')\n")
    tournament = competition_actions.create_tournament(
        owner, "cup", "bigtwo", [version, rival], table_size=2
    )
    done = played([version, rival], Match.Status.DONE, [LOG_SECRET, "rival's own log"])
    running = played([version, rival], Match.Status.RUNNING, [LOG_SECRET, ""])
    return World(owner, other, bot, version, tournament, done, running, staff)


def as_person(world: World, who: str) -> APIClient:
    client = APIClient()
    user = {"owner": world.owner, "other": world.other, "staff": world.staff}.get(who)
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def upload_file() -> dict[str, Any]:
    return {"file": SimpleUploadedFile("bot.py", b"import botkit\nbotkit.run(lambda o, l: 1)\n")}


#: (name, method, path template, body, format, statuses for owner, other, anonymous).
ROUTES: list[tuple[str, str, str, Any, str, tuple[int, int, int]]] = [
    ("api root", "get", "/api/", None, "json", (200, 200, 200)),
    ("games", "get", "/api/games/", None, "json", (200, 200, 200)),
    ("me", "get", "/api/me/", None, "json", (200, 200, 401)),
    ("bot list", "get", "/api/bots/", None, "json", (200, 200, 200)),
    ("bot detail", "get", "/api/bots/{bot}/", None, "json", (200, 200, 200)),
    (
        "bot create",
        "post",
        "/api/bots/",
        {"game": "bigtwo", "name": "new"},
        "json",
        (201, 201, 401),
    ),
    ("bot versions", "get", "/api/bots/{bot}/versions/", None, "json", (200, 200, 200)),
    ("bot upload", "post", "/api/bots/{bot}/versions/", upload_file, "multipart", (201, 403, 401)),
    ("bot retire", "post", "/api/bots/{bot}/retire/", None, "json", (200, 403, 401)),
    ("version list", "get", "/api/versions/", None, "json", (200, 200, 200)),
    ("version detail", "get", "/api/versions/{version}/", None, "json", (200, 200, 200)),
    ("version code", "get", "/api/versions/{version}/code/", None, "json", (200, 403, 401)),
    ("version retire", "post", "/api/versions/{version}/retire/", None, "json", (200, 403, 401)),
    ("tournament list", "get", "/api/tournaments/", None, "json", (200, 200, 200)),
    ("tournament detail", "get", "/api/tournaments/{tournament}/", None, "json", (200, 200, 200)),
    (
        "tournament create",
        "post",
        "/api/tournaments/",
        lambda w: {"name": "mine too", "game": "bigtwo", "participants": [w.version.pk]},
        "json",
        (400, 400, 401),  # one entrant is too few for any table: refused, but only after sign-in
    ),
    ("standings", "get", "/api/tournaments/{tournament}/standings/", None, "json", (200,) * 3),
    (
        "head to head",
        "get",
        "/api/tournaments/{tournament}/head-to-head/",
        None,
        "json",
        (200,) * 3,
    ),
    (
        "tournament start",
        "post",
        "/api/tournaments/{tournament}/start/",
        None,
        "json",
        (202, 403, 401),
    ),
    (
        "tournament cancel",
        "post",
        "/api/tournaments/{tournament}/cancel/",
        None,
        "json",
        (409, 403, 401),
    ),
    ("match list", "get", "/api/matches/", None, "json", (200, 200, 200)),
    ("match list by bot", "get", "/api/matches/?bot={bot}", None, "json", (200, 200, 200)),
    ("match detail", "get", "/api/matches/{done}/", None, "json", (200, 200, 200)),
    ("running match", "get", "/api/matches/{running}/", None, "json", (200, 200, 200)),
    ("replay", "get", "/api/matches/{done}/replay/", None, "json", (200, 200, 200)),
    ("running replay", "get", "/api/matches/{running}/replay/", None, "json", (409, 409, 409)),
    (
        "quick match",
        "post",
        "/api/matches/quick/",
        lambda w: {"version": w.version.pk, "house_bots": ["random"]},
        "json",
        (202, 403, 401),
    ),
    ("leaderboard", "get", "/api/leaderboards/bigtwo/", None, "json", (200, 200, 200)),
    ("unknown leaderboard", "get", "/api/leaderboards/chess/", None, "json", (404, 404, 404)),
    ("schema", "get", "/api/schema/", None, "json", (200, 200, 200)),
]


def call(world: World, who: str, route: tuple[str, str, str, Any, str, Any]) -> Any:
    _, method, template, body, fmt, _ = route
    path = template.format(
        bot=world.bot.pk,
        version=world.version.pk,
        tournament=world.tournament.pk,
        done=world.done.pk,
        running=world.running.pk,
    )
    if callable(body):
        body = body() if body is upload_file else body(world)
    client = as_person(world, who)
    return (
        getattr(client, method)(path, body, format=fmt) if body else getattr(client, method)(path)
    )


@functools.cache
def openapi() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(schema, default=str))


def matches_schema(method: str, path: str, response: Any) -> None:
    """A 2xx JSON answer is what the OpenAPI schema says that operation answers."""
    schema = openapi()
    for template, operations in schema["paths"].items():
        if re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", template), path) and method in operations:
            described = operations[method]["responses"][str(response.status_code)]
            shape = described["content"]["application/json"]["schema"]
            expected = json_schema(shape, schema["components"]["schemas"])
            jsonschema.validate(response.json(), expected, format_checker=FormatChecker())
            return
    raise AssertionError(f"{method} {path} is not in the schema")


@pytest.mark.parametrize("route", ROUTES, ids=[r[0] for r in ROUTES])
@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_each_person_gets_what_the_rules_allow_and_never_the_owners_secrets(
    world: World, who: str, route: tuple[str, str, str, Any, str, tuple[int, int, int]]
) -> None:
    response = call(world, who, route)
    expected = route[5][("owner", "other", "anonymous").index(who)]
    assert response.status_code == expected, response.content[:500]
    described = response.wsgi_request.path != "/api/"  # the browsable root is not an operation
    if described and response.status_code < 300 and response["Content-Type"] == "application/json":
        matches_schema(route[1], response.wsgi_request.path, response)
    if who != "owner":
        for secret in SECRETS:
            assert secret.encode() not in response.content


def test_the_owner_reads_their_code_check_log_and_match_log(world: World) -> None:
    client = as_person(world, "owner")
    code = client.get(f"/api/versions/{world.version.pk}/code/")
    assert code["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(code.content)) as archive:
        assert archive.read("main.py").decode() == SOURCE
    detail = client.get(f"/api/versions/{world.version.pk}/").json()
    assert detail["check_report"]["log"] == CHECK_SECRET
    seats = client.get(f"/api/matches/{world.done.pk}/").json()["seats"]
    assert [seat["log"] for seat in seats] == [LOG_SECRET, None]  # the rival's log is not theirs


def test_a_running_match_shows_no_result_faults_or_hidden_cards(world: World) -> None:
    Match.objects.filter(pk=world.running.pk).update(
        result={"scores": [0, 0], "places": [1, 1]},
        faults=[{"bot": 0, "text": "As Kd"}],
    )
    replay_store.stored_replay(world.running.pk, {"games": [{"hidden": "As Kd"}]}).save()
    for who in ("owner", "other", "anonymous"):
        client = as_person(world, who)
        detail = client.get(f"/api/matches/{world.running.pk}/")
        assert detail.json()["result"] is None and detail.json()["faults"] == []
        assert b"As Kd" not in detail.content
        listed = client.get("/api/matches/?status=running")
        assert b"As Kd" not in listed.content
        assert client.get(f"/api/matches/{world.running.pk}/replay/").status_code == 409


def test_staff_may_retire_any_bot_and_cancel_any_tournament(world: World) -> None:
    client = as_person(world, "staff")
    assert client.post(f"/api/bots/{world.bot.pk}/retire/").status_code == 200
    assert Bot.objects.get(pk=world.bot.pk).retired
    competition_actions.start_tournament(world.tournament.pk)
    assert client.post(f"/api/tournaments/{world.tournament.pk}/cancel/").status_code == 200
    # ...but never reads anyone's code.
    assert client.get(f"/api/versions/{world.version.pk}/code/").status_code == 403


def test_registration_gives_a_token_that_signs_in(db: None) -> None:
    client = APIClient()
    made = client.post(
        "/api/register/", {"username": "newcomer", "password": "a fine long password"}
    )
    assert made.status_code == 201 and "password" not in made.json()
    token = made.json()["token"]
    again = client.post("/api/token/", {"username": "newcomer", "password": "a fine long password"})
    assert again.json()["token"] == token
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/me/").json()["username"] == "newcomer"
    taken = APIClient().post("/api/register/", {"username": "NEWCOMER", "password": "x" * 12})
    assert taken.status_code == 400 and "taken" in taken.json()["username"][0]


def test_a_session_signs_in_too(world: World) -> None:
    client = APIClient()
    assert client.login(username="owner", password="owner's long password")
    assert client.get(f"/api/versions/{world.version.pk}/code/").status_code == 200


def test_the_same_code_uploaded_twice_is_the_same_version(world: World) -> None:
    client = as_person(world, "owner")
    url = f"/api/bots/{world.bot.pk}/versions/"
    again = client.post(url, {"file": SimpleUploadedFile("x.py", SOURCE.encode())})
    assert again.status_code == 200 and again.json()["id"] == world.version.pk
    assert BotVersion.objects.filter(bot=world.bot).count() == 1


def test_a_retired_bot_takes_no_versions_and_enters_no_tournament(world: World) -> None:
    client = as_person(world, "owner")
    client.post(f"/api/bots/{world.bot.pk}/retire/")
    refused = client.post(f"/api/bots/{world.bot.pk}/versions/", upload_file())
    assert refused.status_code == 400 and "retired" in refused.json()["file"][0]
    rival = BotVersion.objects.exclude(bot=world.bot).get()
    entry = {"name": "x", "game": "bigtwo", "participants": [world.version.pk, rival.pk]}
    refused = client.post("/api/tournaments/", entry, format="json")
    assert refused.status_code == 400 and "retired" in str(refused.json())


def test_pending_versions_may_not_play_rated_games(world: World) -> None:
    code, digest = bundle_code({"main.py": b"x = 2\n"})
    pending = bot_actions.add_version(world.bot, code, digest)
    rival = BotVersion.objects.exclude(bot=world.bot).get()
    client = as_person(world, "owner")
    entry = {"name": "x", "game": "bigtwo", "participants": [pending.pk, rival.pk], "table_size": 2}
    rated = client.post("/api/tournaments/", entry, format="json")
    assert rated.status_code == 400 and "accepted" in str(rated.json())
    unrated = client.post("/api/tournaments/", {**entry, "rated": False}, format="json")
    assert unrated.status_code == 201, unrated.content


def test_filters_narrow_the_lists(world: World) -> None:
    client = as_person(world, "anonymous")

    def count(url: str) -> int:
        return len(client.get(url).json()["results"])

    assert count("/api/bots/?owner=other") == 1
    assert count("/api/matches/?status=done") == 1
    assert count(f"/api/matches/?tournament={world.tournament.pk}") == 0
    assert count(f"/api/matches/?bot={world.bot.pk}") == 2
    assert count("/api/versions/?owner=owner") == 1
    assert count("/api/tournaments/?status=draft") == 1
    assert client.get("/api/bots/?game=chess").status_code == 400


def test_the_api_is_browsable(world: World) -> None:
    page = as_person(world, "anonymous").get("/api/bots/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert b"mine" in page.content and CODE_SECRET.encode() not in page.content


def test_a_tournament_seed_is_random_and_secret_until_it_is_over(world: World) -> None:
    client = as_person(world, "owner")
    rival = BotVersion.objects.exclude(bot=world.bot).get()
    entry = {"name": "x", "game": "bigtwo", "participants": [world.version.pk, rival.pk]}
    made = client.post("/api/tournaments/", {**entry, "table_size": 2, "seed": 7}, format="json")
    assert made.status_code == 201 and made.json()["seed"] is None
    stored = Tournament.objects.get(pk=made.json()["id"]).seed
    other = client.post("/api/tournaments/", {**entry, "table_size": 2}, format="json")
    assert stored not in (0, 7, Tournament.objects.get(pk=other.json()["id"]).seed)
    # Cancelled, it can be resumed and its matches played from that seed: still secret.
    Tournament.objects.filter(pk=made.json()["id"]).update(status=Tournament.Status.CANCELLED)
    assert client.get(f"/api/tournaments/{made.json()['id']}/").json()["seed"] is None
    Tournament.objects.filter(pk=made.json()["id"]).update(status=Tournament.Status.FINISHED)
    assert client.get(f"/api/tournaments/{made.json()['id']}/").json()["seed"] == stored


def test_a_retired_version_enters_no_tournament_or_quick_match(world: World) -> None:
    client = as_person(world, "owner")
    retired = client.post(f"/api/versions/{world.version.pk}/retire/")
    assert retired.status_code == 200 and retired.json()["retired"] is True
    rival = BotVersion.objects.exclude(bot=world.bot).get()
    entry = {"name": "x", "game": "bigtwo", "participants": [world.version.pk, rival.pk]}
    refused = client.post("/api/tournaments/", {**entry, "table_size": 2}, format="json")
    assert refused.status_code == 400 and "retired" in str(refused.json())
    quick = {"version": world.version.pk, "house_bots": ["random"]}
    refused = client.post("/api/matches/quick/", quick, format="json")
    assert refused.status_code == 400 and "retired" in str(refused.json())
    listed = client.get(f"/api/versions/?retired=true&bot={world.bot.pk}").json()
    assert [row["id"] for row in listed["results"]] == [world.version.pk]
    assert client.get(f"/api/matches/{world.done.pk}/").json()["seats"][0]["log"] == LOG_SECRET


def test_uploads_beyond_the_rate_are_refused_with_429(world: World, settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "uploads": "2/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = as_person(world, "owner")
    url = f"/api/bots/{world.bot.pk}/versions/"
    answers = [
        client.post(url, {"file": SimpleUploadedFile("bot.py", f"X = {i}\n".encode())}).status_code
        for i in range(3)
    ]
    assert answers == [201, 201, 429]
    assert client.get(url).status_code == 200  # reading is never limited
    assert BotVersion.objects.filter(bot=world.bot).count() == 3  # the first one and two more


def test_game_options_beyond_their_declared_bounds_are_a_clear_400(world: World) -> None:
    rival = BotVersion.objects.exclude(bot=world.bot).get()
    client = as_person(world, "owner")
    entry = {
        "name": "x",
        "game": "bigtwo",
        "participants": [world.version.pk, rival.pk],
        "table_size": 2,
        "rated": False,
    }
    huge = client.post("/api/tournaments/", {**entry, "options": {"deals": 10**9}}, format="json")
    assert huge.status_code == 400
    assert huge.json()["options"] == [
        "bigtwo option 'deals' must be a whole number from 1 to 20, not 1000000000"
    ]
    fine = client.post("/api/tournaments/", {**entry, "options": {"deals": 20}}, format="json")
    assert fine.status_code == 201, fine.content
    assert fine.json()["options"]["deals"] == 20
    with pytest.raises(ServiceError, match="from 1 to 20, not 21"):
        competition_actions.create_tournament(
            None, "y", "bigtwo", [world.version, rival], options={"deals": 21}
        )
