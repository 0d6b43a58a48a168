"""The web and worker image builds with no network and works inside.

scripts/build-app-image builds the repository's Dockerfile with ``--network none`` on the
offline Debian base (skipped when the image already has the hash of its inputs, so a run
after the first costs seconds; a fresh machine builds it from nothing).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sandbox.runtimes import RUNTIMES

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("APP_IMAGE", "cardjudge/app:latest")


def run_in_image(*command: str, env: dict[str, str] | None = None) -> str:
    flags = [item for key, value in (env or {}).items() for item in ("-e", f"{key}={value}")]
    done = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", *flags, IMAGE, *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def image() -> str:
    done = subprocess.run(
        [str(ROOT / "scripts" / "build-app-image")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return IMAGE


def test_the_image_passes_djangos_checks_with_no_network(image: str) -> None:
    assert "System check identified no issues" in run_in_image("python", "manage.py", "check")


def test_the_image_keeps_no_secret_key(image: str) -> None:
    """Without DJANGO_SECRET_KEY the settings make one in var/; the build must not, or every
    container of the image would share a key baked into it."""
    assert "secret-key" not in run_in_image("ls", "-A", "/app/var")


def test_web_and_beat_run_as_an_unprivileged_user(image: str) -> None:
    inspected = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Config.User}}", image],
        capture_output=True,
        text=True,
        check=True,
    )
    assert inspected.stdout.strip() == "app"  # compose makes only the worker root


def test_gunicorn_serves_the_static_files_in_production_mode(image: str) -> None:
    fetch = (
        "import time, urllib.request as r\n"
        "for _ in range(50):\n"
        "    try:\n"
        "        page = r.urlopen('http://127.0.0.1:8000/static/admin/css/base.css')\n"
        "        break\n"
        "    except OSError:\n"
        "        time.sleep(0.2)\n"
        "print(page.status, page.headers.get_content_type(), len(page.read()))\n"
    )
    output = run_in_image(
        "sh",
        "-c",
        "gunicorn tournaments.config.wsgi:application --bind 127.0.0.1:8000 --workers 1 "
        f'2>/dev/null & python -c "{fetch}"; kill $!',
        env={"DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": "x" * 50},
    )
    status, kind, size = output.split()[-3:]
    assert (status, kind) == ("200", "text/css") and int(size) > 1000


def test_the_image_holds_the_starter_bots_the_upload_page_offers(image: str) -> None:
    wanted = [f"/app/starters/{name}/{runtime.entry}" for name, runtime in RUNTIMES.items()]
    listed = run_in_image("ls", *wanted).split()
    assert sorted(listed) == sorted(wanted)


def test_the_image_serves_the_docs_and_rules_pages(image: str) -> None:
    """The site's /docs/ and /rules/ pages are rendered from docs/, so the image carries it."""
    render = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "for page in ('/docs/', '/docs/protocol/', '/rules/bigtwo/', '/docs/starters/'):\n"
        "    answer = Client().get(page, HTTP_HOST='localhost')\n"
        "    print(page, answer.status_code, b'<h1' in answer.content)\n"
    )
    output = run_in_image("python", "-c", render, env={"DJANGO_SECRET_KEY": "x" * 50})
    assert output.split().count("200") == 4 and output.split().count("True") == 4, output
