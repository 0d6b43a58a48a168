"""The upload page offers a starter bot per language, each downloadable as its entry file."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from sandbox.runtimes import RUNTIMES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(RUNTIMES))
def test_each_language_has_a_starter_to_download(client: Client, language: str) -> None:
    runtime = RUNTIMES[language]
    response = client.get(f"/starters/{language}/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{runtime.entry}"'
    assert response.content == (ROOT / "starters" / language / runtime.entry).read_bytes()


@pytest.mark.django_db
def test_an_unknown_language_is_a_404(client: Client) -> None:
    assert client.get("/starters/cobol/").status_code == 404
    assert client.get("/starters/..%2Fseeds/").status_code == 404


@pytest.mark.django_db
def test_the_upload_page_links_every_starter(client: Client, django_user_model: type) -> None:
    client.force_login(django_user_model.objects.create_user("starter_fan", password="x" * 12))
    page = client.get("/bots/upload/").content.decode()
    for language, runtime in RUNTIMES.items():
        assert f'href="/starters/{language}/"' in page
        assert runtime.title in page
