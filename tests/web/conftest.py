"""The web pages under test: people, bots and played tournaments, and a real browser.

Matches and checks run in this process (the tests set CELERY_TASK_ALWAYS_EAGER), bots in the local
sandbox and house bots in-process. The browser is Debian's chromium driven by
Playwright against pytest-django's live server on loopback; any request it makes to
another host is refused and recorded, and every test asserts there was none; so is
anything the pages' Content-Security-Policy blocks (only the site's own scripts run).

Every page a browser test opens is audited by axe-core (the copy pinned in pyproject.toml
with axe-playwright-python): ``Visit.go``, ``Visit.shot`` and ``Visit.check`` run it on the
page as it stands and fail on any serious or critical violation, and the ``visit`` fixture
fails a test that left a page (a new document: a link, a form, a redirect; counted when
its answer arrives, before it can be seen) without one of them having audited it.
``Visit.check(name)`` is the review of a finished page: the audit, screenshots at 1280x800
and 390x844 (``test-artifacts/web/<test>/<name>-desktop.png`` and ``-phone.png``), and, at
phone size, no sideways scrolling (the page and every table fit).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.db import transaction
from playwright.sync_api import Browser, Page, Response, Route, expect, sync_playwright
from pytest_django.fixtures import Settings as SettingsWrapper

from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
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
#: The review sizes: a laptop, and a phone (an iPhone 12-15's CSS pixels).
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: axe-core impacts that fail a test (minor and moderate ones are written to a report).
FAILING_IMPACTS = {"serious", "critical"}
AXE = Axe()

#: What overflows a phone's width: the page itself, or a table wider than its box.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  if (document.documentElement.scrollWidth > width + 1)
    wide.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  for (const table of document.querySelectorAll("table")) {
    const box = table.parentElement;
    if (table.offsetWidth > box.clientWidth + 1 || table.getBoundingClientRect().right > width + 1)
      wide.push(`table.${table.className || "(no class)"} is ${table.offsetWidth} px wide`);
  }
  return wide;
}"""

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
    return bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def uploaded_bot(owner: User, game: str, name: str) -> BotVersion:
    """An accepted bot running ``PLAYER`` in the sandbox (it has code and logs to hide)."""
    bot = bot_actions.create_bot(owner, game, name)
    code, digest = bundle_code({"main.py": player_source().encode()})
    return bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def played_tournament(
    owner: User | None, game: str, entrants: list[BotVersion], **fields: object
) -> Tournament:
    """A round robin of ``entrants``, played to the end in this process."""
    fields = {"games_per_pairing": 1, "duplicate": False, "seed": 11, **fields}
    tournament = competition_actions.create_tournament(
        owner, f"{game} cup", game, entrants, **fields
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
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
    """A browser page on the live server that audits pages (axe-core), saves screenshots
    and refuses other hosts."""

    def __init__(self, page: Page, base: str, folder: Path) -> None:
        self.page = page
        self.base = base
        self.folder = folder
        self.outside: list[str] = []
        #: The page loaded last, until it is audited; pages left without an audit.
        self.unaudited: str | None = None
        self.missed: list[str] = []
        page.route("**/*", self._only_loopback)
        page.on("response", self._answered)

    def _only_loopback(self, route: Route) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in LOOPBACK:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def _answered(self, response: Response) -> None:
        """A new document on its way (a navigation's answer that is not a redirect or a
        download): the one before it must have been audited. Counted at the answer, which
        comes before the new page can be seen, so no audit of the new page can precede it
        (the load event can: it waits for the page's styles and scripts)."""
        request = response.request
        if not request.is_navigation_request() or request.frame != self.page.main_frame:
            return
        disposition = response.headers.get("content-disposition") or ""
        if 300 <= response.status < 400 or disposition.startswith("attachment"):
            return
        if self.unaudited is not None:
            self.missed.append(self.unaudited)
        self.unaudited = response.url

    def go(self, path: str) -> None:
        """Open ``path`` and audit it as it loaded."""
        self.page.goto(self.base + path)
        self.audit()

    def audit(self, name: str = "") -> None:
        """axe-core over the page as it stands: no serious or critical violation (the
        others are written to ``axe-NAME.txt`` beside the screenshots, for review)."""
        self.page.wait_for_load_state("load")  # its styles in place (contrast, layout)
        results = AXE.run(self.page)
        self.unaudited = None
        violations = results.response["violations"]
        if violations:
            self.folder.mkdir(parents=True, exist_ok=True)
            label = name or urlsplit(self.page.url).path.strip("/").replace("/", "-") or "home"
            (self.folder / f"axe-{label}.txt").write_text(results.generate_report())
        failing = [v for v in violations if v["impact"] in FAILING_IMPACTS]
        assert not failing, f"axe on {self.page.url}:\n" + "\n".join(
            f"{v['id']} ({v['impact']}): {v['help']} at "
            + "; ".join(", ".join(node["target"]) for node in v["nodes"][:5])
            for v in failing
        )

    def shot(self, name: str) -> Path:
        """Audit the page, then save a screenshot of it at the present viewport."""
        self.audit(name)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def check(self, name: str) -> None:
        """The review of a page: audited at desktop and phone size, screenshots of both
        (NAME-desktop.png, NAME-phone.png), and at phone size nothing wider than the screen.
        The viewport is put back as it was."""
        before = self.page.viewport_size
        try:
            for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
                self.page.set_viewport_size(size)
                self.shot(f"{name}-{label}")
                if size is PHONE:
                    wide = self.page.evaluate(OVERFLOW)
                    assert not wide, f"{self.page.url} at {PHONE['width']} px: {wide}"
        finally:
            if before is not None:
                self.page.set_viewport_size(before)


def log_in(visit: Visit, name: str) -> None:
    """Sign ``name`` (made by make_user) in through the login page, audited on the way."""
    page = visit.page
    visit.go("/accounts/login/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(f"{name}-password-1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name=f"Log out {name}")).to_be_visible()
    visit.audit()


@pytest.fixture
def visit(browser: Browser, live_server: object, request: pytest.FixtureRequest) -> Iterator[Visit]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    expect.set_options(timeout=15_000)  # a loaded CI machine may be slow to answer
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    refused: list[str] = []  # what the Content-Security-Policy blocked (issue 31)
    page.on(
        "console",
        lambda line: refused.append(line.text) if "Content Security" in line.text else None,
    )
    folder = ARTIFACTS / request.node.name
    shutil.rmtree(folder, ignore_errors=True)  # this run's screenshots and reports only
    visit = Visit(page, str(live_server), folder)
    yield visit
    context.close()
    assert not visit.outside, f"the pages asked for other hosts: {visit.outside}"
    assert not errors, f"script errors on the pages: {errors}"
    assert not refused, f"the Content-Security-Policy blocked parts of the pages: {refused}"
    unaudited = visit.missed + ([visit.unaudited] if visit.unaudited else [])
    assert not unaudited, (
        f"pages opened but not audited by axe (call visit.shot, check or audit): {unaudited}"
    )
