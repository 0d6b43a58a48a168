"""The served OpenAPI schema validates, and a client that knows only the schema can use it.

The client reads /api/schema/, finds each operation by its operationId, fills the path
parameters and calls it: it registers, uploads three bots, waits for their checks, enters
them in a round robin, starts it and reads the standings. Tasks go through Redis to real
Celery worker processes (tests/tournaments/conftest.py), so the check and the matches are
played exactly as in production, with the local sandbox.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from tests.tournaments.conftest import Workers, wait_for

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")


def served_schema(client: APIClient) -> dict[str, Any]:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema: dict[str, Any] = response.json()
    return schema


def test_the_served_schema_is_valid_openapi(db: None) -> None:
    schema = served_schema(APIClient())
    validate_schema(schema)  # raises on any violation of the OpenAPI 3 JSON Schema
    assert schema["openapi"].startswith("3.")
    listed = {op["operationId"] for path in schema["paths"].values() for op in path.values()}
    assert {"bots_versions_upload", "tournaments_standings_retrieve", "matches_quick"} <= listed


def test_every_list_in_the_schema_is_paginated(db: None) -> None:
    schema = served_schema(APIClient())
    for path, operations in schema["paths"].items():
        get = operations.get("get", {})
        if get.get("operationId", "").endswith("_list") and path != "/api/games/":
            names = {p["name"] for p in get.get("parameters", [])}
            assert {"cursor", "page_size"} <= names, path


class SchemaClient:
    """Calls operations by operationId, with paths taken from the served schema only."""

    def __init__(self, client: APIClient) -> None:
        self.client = client
        schema = served_schema(client)
        self.operations = {
            op["operationId"]: (method, path)
            for path, ops in schema["paths"].items()
            for method, op in ops.items()
            if isinstance(op, dict) and "operationId" in op
        }
        self.schema = schema

    def call(self, operation: str, body: Any = None, fmt: str = "json", **params: Any) -> Any:
        """Call ``operation``; its answer must match the schema's description of it."""
        method, path = self.operations[operation]
        for name, value in params.items():
            path = path.replace("{" + name + "}", str(value))
        assert "{" not in path, f"{operation}: unfilled parameter in {path}"
        send = getattr(self.client, method)
        response = send(path, body, format=fmt) if body is not None else send(path)
        assert response.status_code < 400, (operation, response.status_code, response.content)
        answer = response.json()
        described = self.schema["paths"][self.operations[operation][1]][method]["responses"]
        shape = described[str(response.status_code)]["content"]["application/json"]["schema"]
        expected = json_schema(shape, self.schema["components"]["schemas"])
        jsonschema.validate(answer, expected, format_checker=jsonschema.FormatChecker())
        return answer

    def sign_in(self, token: str) -> None:
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {token}")


def json_schema(node: Any, components: dict[str, Any]) -> Any:
    """An OpenAPI 3.0 schema as plain JSON Schema: references inlined, ``nullable`` as null."""
    if isinstance(node, list):
        return [json_schema(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return json_schema(components[node["$ref"].rsplit("/", 1)[1]], components)
    plain = {key: json_schema(value, components) for key, value in node.items()}
    if plain.pop("nullable", False):
        return {"anyOf": [plain, {"type": "null"}]}
    return plain


def test_the_schema_describes_real_answers(db: None) -> None:
    """The check in SchemaClient.call can fail: a wrong answer is refused."""
    schema = served_schema(APIClient())
    bot = schema["components"]["schemas"]["Bot"]
    good = {
        "id": 1,
        "name": "a",
        "game": "bigtwo",
        "owner": None,
        "house_policy": "",
        "retired": False,
        "created_at": "2026-01-01T00:00:00Z",
        "versions": 0,
        "latest_version": None,
        "rating": None,
    }
    jsonschema.validate(good, json_schema(bot, schema["components"]["schemas"]))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {**good, "id": "one"}, json_schema(bot, schema["components"]["schemas"])
        )


def bot_source(style: int) -> bytes:
    """Three different (and legal) players: first, last and middle of the legal actions."""
    pick = ["0", "len(legal) - 1", "len(legal) // 2"][style]
    return f"import botkit\nbotkit.run(lambda observation, legal: {pick})\n".encode()


def test_a_schema_only_client_uploads_checks_enters_and_reads_standings(
    workers: Workers,
) -> None:
    workers.start("api")
    api = SchemaClient(APIClient())
    # Three people, a bot each: one owner's bots never share a rated table.
    tokens = []
    for person in ("ada", "bea", "cyd"):
        account = api.call("register_create", {"username": person, "password": "analytical engine"})
        tokens.append(account["token"])

    versions = []
    for style in range(3):
        api.sign_in(tokens[style])
        bot = api.call("bots_create", {"game": "bigtwo", "name": f"player{style}"})
        upload = SimpleUploadedFile(f"player{style}.py", bot_source(style))
        version = api.call("bots_versions_upload", {"file": upload}, fmt="multipart", id=bot["id"])
        assert version["status"] in ("pending", "checking")
        versions.append(version["id"])

    def checked() -> bool:
        statuses = [api.call("versions_retrieve", id=pk)["status"] for pk in versions]
        return all(status in ("accepted", "rejected") for status in statuses)

    wait_for(checked, 90, "the worker to check the uploads")
    for token, pk in zip(tokens, versions, strict=True):
        api.sign_in(token)  # a check's report is its owner's
        report = api.call("versions_retrieve", id=pk)
        assert report["status"] == "accepted", report["check_report"]
        sizes = [match["players"] for match in report["check_report"]["matches"]]
        # every table size of Big Two first, then further matches until each situation is met
        assert sizes[:3] == [2, 3, 4] and set(sizes) == {2, 3, 4}

    api.sign_in(tokens[0])
    tournament = api.call(
        "tournaments_create",
        {
            "name": "first cup",
            "game": "bigtwo",
            "participants": versions,
            "table_size": 2,
            "games_per_pairing": 2,
        },
    )
    api.call("tournaments_start_create", id=tournament["id"])

    def finished() -> bool:
        return api.call("tournaments_retrieve", id=tournament["id"])["status"] == "finished"

    wait_for(finished, 90, "the worker to play the round robin")
    standings = api.call("tournaments_standings_retrieve", id=tournament["id"])
    assert standings["matches_done"] == standings["matches_total"] == 3
    assert sorted(row["version"] for row in standings["rows"]) == sorted(versions)
    assert sum(row["points"] for row in standings["rows"]) == pytest.approx(3)
    assert [row["place"] for row in standings["rows"]] == sorted(
        row["place"] for row in standings["rows"]
    )
    matches = api.call("matches_list")  # the matches are listed, each with its result
    assert len(matches["results"]) == 3 and all(m["result"] for m in matches["results"])
    board = api.call("leaderboards_list", game="bigtwo")
    assert {row["bot_name"] for row in board["results"]} == {"player0", "player1", "player2"}
