"""The Django project is wired up and its settings fail loudly on bad values."""

import pytest
from django.core.management import call_command

from tournaments.config.env import SettingError, env_bool, env_int


def test_it_passes_the_system_checks() -> None:
    call_command("check", fail_level="WARNING")


def test_it_refuses_a_bad_boolean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_FLAG", "maybe")
    with pytest.raises(SettingError, match="SOME_FLAG='maybe'"):
        env_bool("SOME_FLAG", False)


def test_it_refuses_a_bad_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_COUNT", "ten")
    with pytest.raises(SettingError, match="whole number"):
        env_int("SOME_COUNT", 1)


@pytest.mark.django_db
def test_its_committed_migrations_match_its_models() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
