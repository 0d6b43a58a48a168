"""The web pages under test: people, bots and played tournaments, and a real browser.

Matches and checks run in this process (the tests set CELERY_TASK_ALWAYS_EAGER), bots in the local
sandbox and house bots in-process. The browser is Debian's chromium driven by
Playwright against pytest-django's live server on loopback; any request it makes to
another host is refused and recorded, and every test asserts there was none.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright
from pytest_django.fixtures import Settings as SettingsWrapper

from tournaments import services
from tournaments.models import Bot, BotVersion, Tournament, bundle_code

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}

SECRET_CODE = "SECRET-CODE-7f3a"
SECRET_LOG = "SECRET-LOG-91bc"

#: A protocol bot that plays the first legal action and writes a line to its log per game.
PLAYER = """\
import json, sys
# %(code_marker)s
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "game_over":
        print("%(log_marker)s game over", file=sys.stderr, flush=True)
    elif message["type"] == "match_over":
        break
"""


def player_source() -> str:
    return PLAYER % {"code_marker": SECRET_CODE, "log_marker": SECRET_LOG}


@pytest.fixture
def fast_matches(settings: SettingsWrapper) -> None:
    """Uploaded bots in local processes, house bots called in-process."""
    settings.JUDGE_SANDBOX = "local"
    settings.JUDGE_HOUSE_BOTS = "inprocess"


def make_user(name: str) -> User:
    return User.objects.create_user(name, password=f"{name}-password-1")


def quick_bot(owner: User | None, game: str, name: str, policy: str = "random") -> BotVersion:
    """An accepted bot that plays a house policy in-process (fast rows for page tests)."""
    bot = Bot.objects.create(owner=owner, game=game, name=name, house_policy=policy)
    code, digest = bundle_code({"main.py": f"# plays {policy}\n".encode()})
    return services.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def uploaded_bot(owner: User, game: str, name: str) -> BotVersion:
    """An accepted bot running ``PLAYER`` in the sandbox (it has code and logs to hide)."""
    bot = services.create_bot(owner, game, name)
    code, digest = bundle_code({"main.py": player_source().encode()})
    return services.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def played_tournament(
    owner: User | None, game: str, entrants: list[BotVersion], **fields: object
) -> Tournament:
    """A round robin of ``entrants``, played to the end in this process."""
    fields = {"games_per_pairing": 1, "duplicate": False, "seed": 11, **fields}
    tournament = services.create_tournament(owner, f"{game} cup", game, entrants, **fields)
    with transaction.atomic():
        services.start_tournament(tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED, tournament.status
    return tournament


@pytest.fixture(scope="module", autouse=True)
def synchronous_orm_beside_playwright() -> Iterator[None]:
    """Playwright's synchronous API keeps an event loop running in this thread while a
    browser is open; the ORM calls the tests make between browser steps are still plain
    synchronous calls, so Django may allow them (only in these tests)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One chromium per test module, closed before any other module's tests run."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Visit:
    """A browser page on the live server that saves screenshots and refuses other hosts."""

    def __init__(self, page: Page, base: str, folder: Path) -> None:
        self.page = page
        self.base = base
        self.folder = folder
        self.outside: list[str] = []
        page.route("**/*", self._only_loopback)

    def _only_loopback(self, route: Route) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in LOOPBACK:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def go(self, path: str) -> None:
        self.page.goto(self.base + path)

    def shot(self, name: str) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def visit(browser: Browser, live_server: object, request: pytest.FixtureRequest) -> Iterator[Visit]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    expect.set_options(timeout=15_000)  # a loaded CI machine may be slow to answer
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    visit = Visit(page, str(live_server), ARTIFACTS / request.node.name)
    yield visit
    context.close()
    assert not visit.outside, f"the pages asked for other hosts: {visit.outside}"
    assert not errors, f"script errors on the pages: {errors}"
