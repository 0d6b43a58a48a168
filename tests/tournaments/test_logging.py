"""With debug off, as in production, a server error leaves its traceback on standard error.

Django alone sends it only to the admins' e-mail, which nobody configures: a 500 in
production left no trace (settings.LOGGING). Run in a fresh process, since the test run's
own logging is pytest's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAILING_SITE = """
import django
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import path

django.setup()


def broken(request):
    raise RuntimeError("the view broke: marker 7f3a")


urlpatterns = [path("broken/", broken)]
with override_settings(ROOT_URLCONF=__name__):
    answer = Client(raise_request_exception=False).get("/broken/")
print("status", answer.status_code)
"""


def run_failing_site(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "failing_site.py"
    script.write_text(FAILING_SITE)
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tournaments.config.settings",
        "DJANGO_DEBUG": "false",
        "DJANGO_ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}",
        **env,
    }
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_a_server_error_is_logged_with_its_traceback(tmp_path: Path) -> None:
    done = run_failing_site(tmp_path)
    assert "status 500" in done.stdout
    assert "ERROR django.request" in done.stderr
    assert "Traceback" in done.stderr
    assert "RuntimeError: the view broke: marker 7f3a" in done.stderr


def test_log_level_is_checked(tmp_path: Path) -> None:
    refused = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tournaments.config.settings",
            "LOG_LEVEL": "LOUD",
        },
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert refused.returncode != 0
    assert "LOG_LEVEL='LOUD': expected one of DEBUG, INFO, WARNING, ERROR" in refused.stderr
