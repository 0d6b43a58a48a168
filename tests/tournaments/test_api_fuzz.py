"""Issue 31, item 1: property-based fuzzing of every API endpoint from the OpenAPI schema
the site publishes (/api/schema/), by schemathesis: anonymous and with a token, each
generated request must get no 5xx and, where the schema describes the answer, an answer
that matches it. Examples per endpoint are few (FUZZ_EXAMPLES) so the run stays within a
couple of minutes on a loaded machine; hypothesis keeps the failures it finds
(.hypothesis/) and tries them first next time."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions, duels
from tournaments.models import BotVersion, Match, Rating, Seat, bundle_code

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "15"))
CHECKS = [not_a_server_error, response_schema_conformance]


#: The schema as the site publishes it, fetched from the app itself.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


@pytest.fixture(autouse=True)
def in_process(db: None, settings: Any) -> Iterator[None]:
    """Requests keep the test's database connection open (as Django's test client does),
    so the test's rows stay visible and are rolled back at its end."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.JUDGE_SANDBOX = "local"
    request_finished.disconnect(close_old_connections)
    request_started.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def owned(db: None) -> dict[str, Any]:
    """A user's token and the ids of a bot, a version, a tournament and a finished match of
    theirs, which GET requests also ask for (generated ids are almost never real ones)."""
    owner = User.objects.create_user("fuzzer", password="a long password 1")
    versions = []
    for name in ("fuzzbot", "rival"):
        bot = bot_actions.create_bot(owner, "oceans11", name)
        code, digest = bundle_code({"main.py": f"# {name}\n".encode()})
        versions.append(bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED))
        Rating.objects.create(bot=bot, game="oceans11", elo=1500, matches=1)
    tournament = competition_actions.create_tournament(
        owner, "cup", "oceans11", versions, table_size=2
    )
    match = Match.objects.create(
        game="oceans11",
        status=Match.Status.DONE,
        tournament=tournament,
        seed=1,
        result={"scores": [1, -1], "places": [1, 2], "games": []},
    )
    Seat.objects.bulk_create(Seat(match=match, index=i, version=v) for i, v in enumerate(versions))
    duel = duels.create_duel(owner, duels.DuelRequest(b=versions[0], a=versions[1]))
    return {
        "token": str(Token.objects.create(user=owner).key),
        "/api/bots/": versions[0].bot_id,
        "/api/versions/": versions[0].pk,
        "/api/tournaments/": tournament.pk,
        "/api/matches/": match.pk,
        "/api/duels/": duel.pk,
    }


@schema.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_server_error(case: Any, owned: dict[str, Any]) -> None:
    """Each case anonymous and with the owner's token; a GET of one object again with the
    id of the owner's object of that kind."""
    signed_in = {"Authorization": f"Token {owned['token']}"}
    case.call_and_validate(checks=CHECKS)
    case.call_and_validate(headers=signed_in, checks=CHECKS)
    real = next((pk for prefix, pk in owned.items() if case.path.startswith(prefix)), None)
    if case.method == "GET" and "id" in (case.path_parameters or {}) and real is not None:
        case.path_parameters = {**case.path_parameters, "id": real}
        case.call_and_validate(checks=CHECKS)
        case.call_and_validate(headers=signed_in, checks=CHECKS)
