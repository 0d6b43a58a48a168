"""Issue 31, item 4: names that pass for another are refused: a user name that looks like
another user's (Unicode's UTS #39 skeleton, tournaments.bots.names.skeleton), and a bot name
that looks like another owner's bot of the same game."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from tournaments.bots import bot_actions, names

LOOK_ALIKES = ["ɑlice", "alıce", "ᴀlice", "aIice", "a1ice", "ALICE"]


@pytest.fixture(autouse=True)
def quick_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.API_REGISTRATION_RATE = "1000/hour"


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_look_alikes_share_the_skeleton_of_the_name_they_copy(name: str) -> None:
    assert names.skeleton(name) == names.skeleton("alice")
    assert names.skeleton(name + "bot") == names.skeleton("alicebot")


@pytest.mark.parametrize("other", ["alex", "bob", "dod", "mallory", "émile", "алиса"])
def test_names_that_look_different_have_different_skeletons(other: str) -> None:
    assert names.skeleton(other) != names.skeleton("alice")


def register(name: str) -> Any:
    body = {"username": name, "password": "a long password 1"}
    return APIClient().post("/api/register/", body, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_the_api_refuses_a_user_name_that_looks_like_another(name: str) -> None:
    assert register("alice").status_code == 201
    answer = register(name)
    assert answer.status_code == 400
    message = answer.json()["username"][0]
    assert "looks like the user name 'alice'" in message or message == "that name is taken"
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_the_signup_page_refuses_a_look_alike_user_name() -> None:
    User.objects.create_user("alice", password="a long password 1")
    answer = Client().post(
        "/accounts/signup/",
        {"username": "aIice", "password1": "a long password 9", "password2": "a long password 9"},
    )
    assert "looks like the user name &#x27;alice&#x27;" in answer.content.decode()
    assert User.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["ᴀlicebot", "aIicebot", "a1icebot", "alicebot", "ALICEBOT"])
def test_a_bot_name_that_looks_like_another_owners_is_refused(name: str) -> None:
    alice = User.objects.create_user("alice", password="a long password 1")
    mallory = User.objects.create_user("mallory", password="a long password 2")
    bot_actions.create_bot(alice, "oceans11", "alicebot")
    client = APIClient()
    client.force_authenticate(mallory)
    answer = client.post("/api/bots/", {"game": "oceans11", "name": name}, format="json")
    assert answer.status_code == 400, answer.content
    assert "looks like" in str(answer.json())
    elsewhere = client.post("/api/bots/", {"game": "bigtwo", "name": name}, format="json")
    assert elsewhere.status_code == 201  # another game's leaderboard: no one to pass for
