"""Typed readers of settings from the environment that fail loudly on a bad value."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import dj_database_url

T = TypeVar("T")


class SettingError(ValueError):
    """An environment variable holds a value that cannot be used."""


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise SettingError(f"{name}={raw!r}: expected true/false, yes/no, on/off or 1/0")


def env_int(name: str, default: int) -> int:
    return _env_parsed(name, default, int, "a whole number")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_origins(name: str, default: list[str]) -> list[str]:
    """Web origins as Django's CSRF_TRUSTED_ORIGINS wants them: ``https://HOST[:PORT]``,
    the scheme included and no path (``https://*.example.com`` covers subdomains)."""
    origins = env_list(name, default)
    for origin in origins:
        scheme, separator, host = origin.partition("://")
        if scheme not in ("http", "https") or not separator or not host or "/" in host:
            raise SettingError(
                f"{name}: {origin!r} is not an origin; write it as https://HOST or "
                "https://HOST:PORT (scheme included, no path), separated by commas"
            )
    return origins


def env_float(name: str, default: float) -> float:
    return _env_parsed(name, default, float, "a number such as 2.5")


def _env_parsed(name: str, default: T, parse: Callable[[str], T], expected: str) -> T:
    """``parse`` of the variable's value, ``default`` when unset or empty; a value that
    ``parse`` refuses (ValueError) is a SettingError naming what was ``expected``."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return parse(raw)
    except ValueError:
        raise SettingError(f"{name}={raw!r}: expected {expected}") from None


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    if value not in choices:
        raise SettingError(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


def env_database(name: str, default: str, sqlite_busy_timeout: float = 30.0) -> dict[str, Any]:
    """A Django DATABASES entry from a URL (sqlite:///PATH or postgres://USER@HOST/NAME).

    SQLite is set up for several writing processes (web and workers): write-ahead log (readers
    never block the writer), every transaction BEGIN IMMEDIATE (it takes the write lock at
    once, so two transactions never deadlock upgrading their locks, which SQLite reports as
    "database is locked" at once), and a wait of ``sqlite_busy_timeout`` seconds for the lock.
    """
    url = os.environ.get(name) or default
    scheme = url.split(":", 1)[0]
    if scheme not in ("sqlite", "postgres", "postgresql", "pgsql"):
        raise SettingError(
            f"{name}={url!r}: expected sqlite:///PATH or postgres://USER:PASSWORD@HOST:PORT/NAME"
        )
    try:
        # Connections are kept a minute and checked before reuse: after a database restart
        # a kept one is dead, and without the check the next request on it would fail (500).
        config: dict[str, Any] = dict(
            dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
        )
    except ValueError as error:
        raise SettingError(f"{name}={url!r}: {error}") from None
    if not config.get("NAME"):
        raise SettingError(f"{name}={url!r}: the URL names no database")
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["OPTIONS"] = {
            "timeout": sqlite_busy_timeout,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    return config


def local_secret_key(path: Path) -> str:
    """The secret key kept in ``path``, made (random, readable by this user only) the first
    time; for the main job on one machine. A deployment sets DJANGO_SECRET_KEY instead.

    The key is written to a file of its own and then linked into place, so processes that
    start together all read the same, complete key.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(50) + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first: theirs is used
        finally:
            draft.unlink()
    return path.read_text().strip()
