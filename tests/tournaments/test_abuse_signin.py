"""Issue 31, item 4: password spraying from one address is limited across user names (the
default LOGIN_LOCKOUT_BY counts an address over every name), while another address still
signs in."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
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
