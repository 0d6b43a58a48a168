"""Issue 31, item 4: names that pass for another are refused: a user name that looks like
another user's (Unicode's UTS #39 skeleton, tournaments.bots.names.skeleton), and a bot name
that looks like another owner's bot of the same game."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from tournaments.bots import bot_actions, names
from tournaments.errors import ServiceError
from tournaments.models import Bot, NameSkeleton

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
    # The very same name is said to be taken, not to look like itself (issue 46).
    said = "the name 'alicebot' is taken" if name == "alicebot" else "looks like"
    assert said in str(answer.json())
    elsewhere = client.post("/api/bots/", {"game": "bigtwo", "name": name}, format="json")
    assert elsewhere.status_code == 201  # another game's leaderboard: no one to pass for


#: Issue 42: Latin look-alikes beyond UTS #39's single characters (pairs that pass for
#: one letter, marks and strokes), each with the name it copies.
USER_COPIES = {
    "rnallory": "mallory",
    "clave": "dave",
    "vvalter": "walter",
    "ạlice": "alice",
    "malłory": "mallory",
}
BOT_COPIES = {
    "rnemory": "memory",
    "alicetwȯ": "alicetwo",
    "álicetwo": "alicetwo",
    "alicetvvo": "alicetwo",
}


@pytest.mark.django_db
@pytest.mark.parametrize(("copy", "name"), USER_COPIES.items())
def test_a_user_name_copied_with_latin_look_alikes_is_refused(copy: str, name: str) -> None:
    assert register(name).status_code == 201
    answer = register(copy)
    assert answer.status_code == 400
    assert answer.json()["username"] == [
        f"{copy!r} looks like the user name {name!r}; choose a name that looks different"
    ]
    assert list(User.objects.values_list("username", flat=True)) == [name]


@pytest.mark.django_db
@pytest.mark.parametrize(("copy", "name"), BOT_COPIES.items())
def test_a_bot_name_copied_with_latin_look_alikes_is_refused(copy: str, name: str) -> None:
    alice = User.objects.create_user("alice", password="a long password 1")
    mallory = User.objects.create_user("mallory", password="a long password 2")
    bot_actions.create_bot(alice, "oceans11", name)
    client = APIClient()
    client.force_authenticate(mallory)
    answer = client.post("/api/bots/", {"game": "oceans11", "name": copy}, format="json")
    assert answer.status_code == 400, answer.content
    assert f"a oceans11 bot of alice is named {name!r}, which {copy!r} looks like" in str(
        answer.json()
    )
    assert list(Bot.objects.values_list("name", flat=True)) == [name]


@pytest.mark.parametrize("name", ["corner", "willow", "cloud", "émile", "straße"])
def test_names_with_those_letters_look_like_their_plain_twins_only(name: str) -> None:
    """rn, vv, cl, marks: the fold joins what looks alike, and keeps other letters apart."""
    plain = {"corner": "comer", "willow": "wiIIow", "cloud": "doud", "émile": "emile"}
    assert names.skeleton(name) == names.skeleton(plain.get(name, "strasse"))
    assert names.skeleton(name) != names.skeleton(name.replace("o", "a").replace("e", "a"))


def make_at_once(makers: list[Callable[[], Any]]) -> list[Any]:
    """Run each maker in its own thread and database connection, released together."""
    start = threading.Barrier(len(makers))

    def run(maker: Callable[[], Any]) -> Any:
        try:
            start.wait()
            return maker()
        except ServiceError as error:
            return error
        finally:
            connection.close()

    with ThreadPoolExecutor(len(makers)) as pool:
        return list(pool.map(run, makers))


@pytest.mark.django_db(transaction=True)
def test_two_look_alike_bots_made_at_once_leave_exactly_one() -> None:
    """The look is claimed under its unique index in the transaction that makes the bot:
    a check before the insert let both ``zorro`` and ``zOrro`` through."""
    owners = [User.objects.create_user(f"owner{i}") for i in range(2)]
    for round_ in range(5):
        copies = [f"zorro{round_}", f"zOrro{round_}"]
        outcome = make_at_once(
            [
                partial(bot_actions.create_bot, owner, "oceans11", copy)
                for owner, copy in zip(owners, copies, strict=True)
            ]
        )
        kept = [made for made in outcome if isinstance(made, Bot)]
        refused = [str(made) for made in outcome if isinstance(made, ServiceError)]
        assert len(kept) == 1 and len(refused) == 1, outcome
        assert "looks like; choose a name that looks different" in refused[0]
    assert Bot.objects.count() == 5 and NameSkeleton.objects.filter(kind="bot").count() == 5


@pytest.mark.django_db(transaction=True)
def test_two_look_alike_users_registered_at_once_leave_exactly_one() -> None:
    answers = make_at_once([partial(register, "zorro"), partial(register, "zOrro")])
    assert sorted(answer.status_code for answer in answers) == [201, 400]
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_the_migration_keeps_names_that_now_look_alike_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Names made before the wider fold may now look alike: both are kept; the older
    holds the look, the younger's is marked, and the migration names it."""
    older = User.objects.create_user("mallory")
    younger = User.objects.create_user("rnallory")  # made before the fold joined them
    migration = importlib.import_module("tournaments.migrations.0024_name_looks_folded")
    migration.recompute_looks(django_apps, None)
    looks = dict(NameSkeleton.objects.filter(kind="user").values_list("user_id", "look"))
    assert looks == {older.pk: "ma110ry", younger.pk: f"ma110ry#user{younger.pk}"}
    assert User.objects.count() == 2
    assert f"user 'rnallory' (id {younger.pk}) looks like 'mallory'" in capsys.readouterr().out
    assert register("rnaIlory").status_code == 400  # the look stays held by the older
