"""Issue 31, item 4: password spraying from one address is limited across user names (the
default LOGIN_LOCKOUT_BY counts an address over every name), while another address still
signs in."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

PASSWORD = "a long password 1"


@pytest.fixture(autouse=True)
def quick_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def sign_in(name: str, password: str, address: str) -> int:
    answer = APIClient().post(
        "/api/token/", {"username": name, "password": password}, REMOTE_ADDR=address
    )
    return answer.status_code


@pytest.mark.django_db
def test_one_address_trying_forty_names_is_locked_out(settings: Any) -> None:
    for i in range(40):
        User.objects.create_user(f"user{i}", password=f"{PASSWORD}{i}")
    answers = [sign_in(f"user{i}", "Winter2026!", "198.51.100.7") for i in range(40)]
    limit = settings.AXES_FAILURE_LIMIT
    assert answers[: limit - 1] == [400] * (limit - 1)  # the limit-th failure locks
    assert set(answers[limit - 1 :]) == {429}
    assert sign_in("user39", f"{PASSWORD}39", "198.51.100.7") == 429  # the right one too
    assert sign_in("user39", f"{PASSWORD}39", "203.0.113.5") == 200  # from elsewhere: fine


def web_sign_in(name: str, password: str, address: str) -> int:
    answer = Client().post(
        "/accounts/login/", {"username": name, "password": password}, REMOTE_ADDR=address
    )
    return answer.status_code


@pytest.mark.django_db
@pytest.mark.parametrize("own_sign_in", [web_sign_in, sign_in], ids=["web", "api-token"])
def test_signing_in_to_ones_own_account_between_guesses_resets_nothing(
    settings: Any, own_sign_in: Any
) -> None:
    """Issue 42: a web sign-in to one's own account every 8 guesses deleted the address's
    failures, and 80 guesses at other names went unrefused."""
    User.objects.create_user("me", password=PASSWORD)
    for i in range(20):
        User.objects.create_user(f"user{i}", password=f"{PASSWORD}{i}")
    address, limit = "198.51.100.9", settings.AXES_FAILURE_LIMIT
    guesses, own = [], []
    for i in range(20):
        guesses.append(web_sign_in(f"user{i}", "Winter2026!", address))
        if i % 8 == 7:
            own.append(own_sign_in("me", PASSWORD, address))
    assert guesses[: limit - 1] == [200] * (limit - 1)  # the form shown again: refused
    assert set(guesses[limit - 1 :]) == {429}
    assert own[0] in (200, 302)  # before the limit, one's own sign-in works
    assert own[1] == 429  # after it, the address is locked out, one's own name too


@pytest.mark.django_db
def test_a_sign_in_forgets_ones_own_mistyped_passwords(settings: Any) -> None:
    """What the reset on success was for: a person who mistyped, then got it right, is not
    held to those failures."""
    User.objects.create_user("me", password=PASSWORD)
    address, limit = "198.51.100.10", settings.AXES_FAILURE_LIMIT
    for _ in range(limit - 1):
        assert web_sign_in("me", "mistyped password", address) == 200
    assert web_sign_in("me", PASSWORD, address) == 302
    for _ in range(limit - 1):
        assert web_sign_in("me", "mistyped password", address) == 200
    assert web_sign_in("me", PASSWORD, address) == 302
