"""/api/duels/ for the owner, another user and an anonymous visitor: only the owner makes,
lists, reads and cancels their duels; bad requests are a 400 saying what was wrong. Tasks
go to the test Redis database and no worker takes them: the rounds stay queued."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from django.contrib.auth.models import User
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tests.tournaments.test_api_schema import json_schema
from tournaments.bots import bot_actions
from tournaments.models import Bot, BotVersion, Duel, Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("redis_broker")]


def client_of(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def people() -> dict[str, Any]:
    owner = User.objects.create(username="owner")
    other = User.objects.create(username="other")
    bot = Bot.objects.create(owner=owner, game="oceans11", name="mine", house_policy="greedy")
    b = bot_actions.add_version(bot, b"", "mine", BotVersion.Status.ACCEPTED)
    a = bot_actions.house_version("oceans11", "random")
    return {"owner": owner, "other": other, "b": b, "a": a}


def duel_schema() -> dict[str, Any]:
    components = SchemaGenerator().get_schema(request=None, public=True)["components"]
    schemas: dict[str, Any] = components["schemas"]
    found: dict[str, Any] = json_schema(schemas["Duel"], schemas)
    return found


def test_the_owner_makes_reads_lists_and_cancels_a_duel(people: dict[str, Any]) -> None:
    owner = client_of(people["owner"])
    made = owner.post(
        "/api/duels/",
        {"b": people["b"].pk, "a": people["a"].pk, "pairs_per_round": 4, "elo1": 40},
        format="json",
    )
    assert made.status_code == 201, made.content
    body = made.json()
    jsonschema.validate(body, duel_schema())
    assert body["status"] == "running" and body["state"]["test"]["elo1"] == 40
    assert body["b_name"] == "mine v1" and body["state"]["history"] == []
    queued = Match.objects.filter(duel_id=body["id"])
    assert sorted(queued.values_list("duel_round", "duel_seating", "games", "status")) == [
        (0, 0, 4, "queued"),
        (0, 1, 4, "queued"),
        (1, 0, 4, "queued"),  # two rounds in flight (DUEL_ROUNDS_IN_FLIGHT)
        (1, 1, 4, "queued"),
    ]
    assert [d["id"] for d in owner.get("/api/duels/").json()["results"]] == [body["id"]]
    assert owner.get(f"/api/duels/{body['id']}/").json()["state"]["decision"] == "running"

    cancelled = owner.post(f"/api/duels/{body['id']}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert set(queued.values_list("status", flat=True)) == {"cancelled"}
    again = owner.post(f"/api/duels/{body['id']}/cancel/")
    assert again.status_code == 409 and "only a running duel" in again.json()["detail"]


def test_others_neither_see_nor_cancel_a_duel(people: dict[str, Any]) -> None:
    made = client_of(people["owner"]).post(
        "/api/duels/", {"b": people["b"].pk, "a": people["a"].pk}, format="json"
    )
    pk = made.json()["id"]
    other, anonymous = client_of(people["other"]), client_of(None)
    assert other.get("/api/duels/").json()["results"] == []
    assert other.get(f"/api/duels/{pk}/").status_code == 404
    assert other.post(f"/api/duels/{pk}/cancel/").status_code == 404
    for answer in (
        anonymous.get("/api/duels/"),
        anonymous.get(f"/api/duels/{pk}/"),
        anonymous.post(f"/api/duels/{pk}/cancel/"),
        anonymous.post("/api/duels/", {"b": people["b"].pk, "a": people["a"].pk}),
    ):
        assert answer.status_code in (401, 403)
    assert Duel.objects.get(pk=pk).status == Duel.Status.RUNNING


@pytest.mark.parametrize(
    ("fields", "field", "said"),
    [
        ({"b": "a"}, "non_field_errors", "must be a version of one of your own bots"),
        ({"a": 999_999}, "a", "no bot version 999999"),
        ({"pairs_per_round": 51}, "pairs_per_round", "less than or equal to 50"),
        ({"max_games": 10}, "max_games", "greater than or equal to 20"),
        ({"elo0": 50}, "non_field_errors", "the Elo bounds need -400 <= elo0 < elo1"),
        ({"table_size": 3}, "non_field_errors", "oceans11 is played by 2 to 2 players"),
    ],
)
def test_a_bad_request_is_a_400_saying_what_was_wrong(
    people: dict[str, Any], fields: dict[str, Any], field: str, said: str
) -> None:
    request = {"b": people["b"].pk, "a": people["a"].pk}
    request.update({k: people[v].pk if v in ("a", "b") else v for k, v in fields.items()})
    answer = client_of(people["owner"]).post("/api/duels/", request, format="json")
    assert answer.status_code == 400
    assert said in " ".join(answer.json()[field])
    assert not Duel.objects.exists()
