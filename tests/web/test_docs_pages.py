"""The documentation on the site: every page of docs/ and every game's rules are served,
their links lead to pages that exist (anchors included), unknown names are a 404, and what a
page holds is escaped, never passed through as HTML."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from judge.games import GAMES
from sandbox.runtimes import RUNTIMES
from tournaments.web import docs

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
DOC_NAMES = sorted(p.stem for p in (ROOT / "docs").glob("*.md") if p.stem != "README")


class Links(HTMLParser):
    """The hrefs and ids of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a" and found.get("href"):
            self.hrefs.append(str(found["href"]))
        if found.get("id"):
            self.ids.add(str(found["id"]))


def parsed(client: Client, address: str) -> Links:
    response = client.get(address)
    assert response.status_code == 200, address
    links = Links()
    links.feed(response.content.decode())
    return links


def site_pages() -> list[str]:
    return [
        "/docs/",
        "/docs/starters/",
        "/rules/",
        *(f"/docs/{name}/" for name in DOC_NAMES),
        *(f"/rules/{game}/" for game in sorted(GAMES)),
    ]


def test_every_doc_and_every_games_rules_are_served(client: Client) -> None:
    for address in site_pages():
        response = client.get(address)
        assert response.status_code == 200, address
    page = client.get("/docs/protocol/").content.decode()
    assert "<h1" in page and "<table>" in page  # rendered, with its tables
    source = (ROOT / "docs" / "protocol.md").read_text()
    first_heading = re.search(r"^# (.+)$", source, re.M).group(1)  # type: ignore[union-attr]
    assert f"<title>{first_heading} ·" in page


def test_every_link_of_every_doc_page_leads_to_a_page_and_anchor_that_exist(
    client: Client,
) -> None:
    checked = 0
    for address in site_pages():
        for href in parsed(client, address).hrefs:
            parts = urlsplit(href)
            assert not parts.scheme and not parts.netloc, f"{address} links out: {href}"
            assert ".md" not in parts.path, f"{address} links a file of docs/: {href}"
            target = parts.path or address
            if target.startswith("/starters/"):
                assert client.get(target).status_code == 200, href
                continue
            if parts.fragment:
                ids = parsed(client, target).ids
                assert parts.fragment in ids, f"{address}: no #{parts.fragment} on {target}"
            elif target != address:
                assert client.get(target).status_code in (200, 302), f"{address}: {href}"
            checked += 1
    assert checked > 50


def test_links_into_the_repository_keep_their_words_and_lose_the_link(client: Client) -> None:
    page = client.get("/docs/bots/").content.decode()
    assert "judge/runtime/botkit.py" in page
    assert "botkit.py</a>" not in page
    assert 'href="/starters/python/"' in page  # a starter's file: its download
    assert 'href="/rules/bigtwo/"' in page


@pytest.mark.parametrize(
    "address",
    ["/docs/nope/", "/docs/README/", "/docs/Bots/", "/rules/chess/", "/docs/..%2Fpyproject/"],
)
def test_an_unknown_page_is_a_404(client: Client, address: str) -> None:
    assert client.get(address).status_code == 404


def test_a_docs_html_and_script_links_are_escaped(
    settings: SettingsWrapper, tmp_path: Path, client: Client
) -> None:
    (tmp_path / "docs" / "rules").mkdir(parents=True)
    (tmp_path / "docs" / "evil.md").write_text(
        "# Evil\n\n<script>alert(1)</script>\n\n[click](javascript:alert(2)) "
        '<img src=x onerror="alert(3)">\n'
    )
    settings.BASE_DIR = tmp_path
    page = client.get("/docs/evil/").content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="javascript' not in page.lower()  # left as words, not a link
    assert "<img" not in page and "&lt;img src=x" in page


def test_a_page_is_rendered_once_per_version_of_its_file(
    settings: SettingsWrapper, tmp_path: Path
) -> None:
    (tmp_path / "docs").mkdir()
    path = tmp_path / "docs" / "page.md"
    path.write_text("# One\n")
    settings.BASE_DIR = tmp_path
    first = docs.render(path)
    assert docs.render(path) is first
    path.write_text("# Two\n")
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)
    assert docs.render(path).title == "Two"


def test_the_starter_kits_page_shows_and_offers_every_language(client: Client) -> None:
    page = client.get("/docs/starters/").content.decode()
    for name, runtime in RUNTIMES.items():
        assert f'href="/starters/{name}/"' in page and runtime.title in page
    python = (ROOT / "starters" / "python" / "main.py").read_text()
    assert python.splitlines()[0].replace('"', "&quot;") in page
