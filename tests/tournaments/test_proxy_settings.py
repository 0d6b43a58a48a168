"""Settings for running behind a TLS proxy: trusted origins, the forwarded scheme, and
cookies that travel over HTTPS only when debugging is off (docs/deploy.md)."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

from tournaments.config.env import SettingError, env_origins

SETTINGS_FILE = Path(__file__).resolve().parents[2] / "tournaments" / "config" / "settings.py"

PROXY_VARIABLES = (
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    "DJANGO_BEHIND_TLS_PROXY",
    "DJANGO_SECURE_COOKIES",
)


def settings_with(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    """The settings module's names as a fresh import computes them under ``env``."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS_FILE))


def test_by_default_it_trusts_no_proxy_and_no_extra_origin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = settings_with(monkeypatch)
    assert settings["CSRF_TRUSTED_ORIGINS"] == []
    assert "SECURE_PROXY_SSL_HEADER" not in settings


def test_it_reads_the_public_origins_as_a_list(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_with(
        monkeypatch,
        DJANGO_CSRF_TRUSTED_ORIGINS="https://judge.example.org, https://*.example.net:8443",
    )
    assert settings["CSRF_TRUSTED_ORIGINS"] == [
        "https://judge.example.org",
        "https://*.example.net:8443",
    ]


@pytest.mark.parametrize(
    "origin", ["judge.example.org", "ftp://judge.example.org", "https://", "https://a.org/x"]
)
def test_it_refuses_an_origin_without_scheme_or_with_a_path(
    monkeypatch: pytest.MonkeyPatch, origin: str
) -> None:
    monkeypatch.setenv("SOME_ORIGINS", f"https://fine.org,{origin}")
    with pytest.raises(SettingError, match=r"SOME_ORIGINS: .* is not an origin.*https://HOST"):
        env_origins("SOME_ORIGINS", [])


def test_it_believes_the_forwarded_scheme_only_when_told_it_is_behind_a_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = settings_with(monkeypatch, DJANGO_BEHIND_TLS_PROXY="yes")
    assert settings["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert "SECURE_PROXY_SSL_HEADER" not in settings_with(
        monkeypatch, DJANGO_BEHIND_TLS_PROXY="false"
    )


def test_it_refuses_a_proxy_flag_that_is_not_a_boolean(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SettingError, match="DJANGO_BEHIND_TLS_PROXY='nginx'"):
        settings_with(monkeypatch, DJANGO_BEHIND_TLS_PROXY="nginx")


def test_cookies_are_https_only_when_debugging_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    production = settings_with(monkeypatch, DJANGO_DEBUG="false", DJANGO_SECRET_KEY="k" * 50)
    assert production["SESSION_COOKIE_SECURE"] and production["CSRF_COOKIE_SECURE"]
    debugging = settings_with(monkeypatch, DJANGO_DEBUG="true")
    assert not debugging["SESSION_COOKIE_SECURE"] and not debugging["CSRF_COOKIE_SECURE"]


def test_secure_cookies_can_be_lifted_for_plain_http(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_with(
        monkeypatch,
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY="k" * 50,
        DJANGO_SECURE_COOKIES="false",
    )
    assert not settings["SESSION_COOKIE_SECURE"] and not settings["CSRF_COOKIE_SECURE"]
