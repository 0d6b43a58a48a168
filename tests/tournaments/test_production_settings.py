"""The main job's settings are production's: debug off, a kept secret key, friendly error
pages that show no routes or settings, tasks sent to workers, and SQLite set up for
several writing processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.core.checks import run_checks
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.test_proxy_settings import settings_with
from tournaments.config.env import env_database, local_secret_key

ROOT = Path(__file__).resolve().parents[2]


def test_debug_is_off_and_tasks_are_not_eager_unless_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CELERY_TASK_ALWAYS_EAGER")  # the tests set it
    default = settings_with(monkeypatch)
    assert default["DEBUG"] is False and default["CELERY_TASK_ALWAYS_EAGER"] is False
    asked = settings_with(monkeypatch, DJANGO_DEBUG="1", CELERY_TASK_ALWAYS_EAGER="true")
    assert asked["DEBUG"] is True and asked["CELERY_TASK_ALWAYS_EAGER"] is True


def test_the_secret_key_is_made_once_and_kept_private(tmp_path: Path) -> None:
    where = tmp_path / "var" / "secret-key"
    keys: list[str] = []
    threads = [
        threading.Thread(target=lambda: keys.append(local_secret_key(where))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and len(keys[0]) >= 50
    assert local_secret_key(where) == keys[0]
    assert where.stat().st_mode & 0o077 == 0
    assert [p.name for p in where.parent.iterdir()] == ["secret-key"]


def test_sqlite_is_opened_in_wal_mode_with_immediate_transactions(tmp_path: Path) -> None:
    config = env_database("NO_SUCH_VARIABLE", f"sqlite:///{tmp_path / 'db.sqlite3'}", 12.5)
    assert config["OPTIONS"]["timeout"] == 12.5
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]
    postgres = env_database("NO_SUCH_VARIABLE", "postgres://u@h:5432/n")
    assert "OPTIONS" not in postgres


def test_a_served_process_is_warned_about_eager_tasks_and_a_missing_broker(
    settings: SettingsWrapper,
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    eager = [m for m in run_checks(include_deployment_checks=True) if m.id == "tournaments.W001"]
    assert len(eager) == 1 and "inside the web request" in eager[0].msg
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "memory://"
    missing = [m for m in run_checks(include_deployment_checks=True) if m.id == "tournaments.W001"]
    assert len(missing) == 1 and "no broker configured" in missing[0].msg
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    fine = [m for m in run_checks(include_deployment_checks=True) if m.id == "tournaments.W001"]
    assert fine == []


def broken_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("SECRET-DETAIL-4411 of a bug")


urlpatterns = [path("broken/", broken_view), path("", include("tournaments.config.urls"))]


@pytest.mark.django_db
def test_error_pages_are_friendly_and_show_no_routes_or_settings(
    settings: SettingsWrapper,
) -> None:
    settings.DEBUG = False
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404
    page = missing.content.decode()
    assert "Page not found" in page and "Tournaments" in page
    assert "URLconf" not in page and "api/" not in page
    broken = client.get("/broken/")
    assert broken.status_code == 500
    page = broken.content.decode()
    assert "Something went wrong" in page
    for leak in ("SECRET-DETAIL-4411", "Traceback", "SECRET_KEY", "DATABASES", settings.SECRET_KEY):
        assert leak not in page


def test_a_served_process_freezes_what_start_up_made_for_the_collector() -> None:
    code = (
        "import gc, tournaments.config.wsgi as w; "
        "from tournaments.config.collector import THRESHOLDS; "
        "assert gc.get_threshold() == THRESHOLDS, gc.get_threshold(); "
        "print(gc.get_freeze_count())"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tournaments.config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 10_000  # Django's and the project's modules, settings, URLs
