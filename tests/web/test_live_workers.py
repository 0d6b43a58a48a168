"""The web UI with real Celery workers, as scripts/run serves it: creating a tournament
returns at once (the button says so while it waits), the page then follows the workers
until the tournament is finished, and the web process never runs the referee or a check
(both are made to fail in this process, where the live server runs).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Route, expect

from tests.tournaments import conftest as service
from tests.web.conftest import Visit, log_in, make_user
from tournaments.models import Match, Tournament
from tournaments.play import runner, version_checks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]
# Real worker processes on the test Redis database and the test database (stopped by PID).
workers = service.workers
redis_broker = service.redis_broker
GAME = "oceans11"
#: Clicks the form's button and reports how it looks a moment later.
PRESS_AND_LOOK = """async () => {
  const button = document.querySelector("button[data-busy]");
  button.click();
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {disabled: button.disabled, text: button.textContent};
}"""


def test_a_tournament_created_on_the_web_is_played_by_the_workers_and_followed_live(
    visit: Visit, workers: service.Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran_here: list[str] = []

    def not_here(*args: object, **kwargs: object) -> None:
        ran_here.append("referee or check")
        raise AssertionError("the web process ran a match or a check")

    monkeypatch.setattr(runner, "play", not_here)
    monkeypatch.setattr(version_checks, "run_check", not_here)
    workers.env["JUDGE_HOUSE_BOTS"] = "inprocess"
    for name in ("w1", "w2"):
        workers.start(name)
    for name in ("w1", "w2"):
        log = workers.folder / f"worker-{name}.log"
        service.wait_for(lambda log=log: b" ready." in log.read_bytes(), 90, f"worker {name}")
    service.first_legal(GAME, "thinker", delay=0.02)
    service.first_legal(GAME, "quick")
    make_user("ada")
    page = visit.page
    log_in(visit, "ada")

    visit.go(f"/tournaments/new/?game={GAME}")
    page.get_by_label("Name").fill("Workers' cup")
    page.get_by_label(re.compile("thinker v1")).check()
    page.get_by_label(re.compile("quick v1")).check()
    page.get_by_label("house: random").check()
    page.get_by_label("Games per pairing").fill("2")
    held: list[Route] = []
    page.route(re.compile(r"/tournaments/new/"), hold_posts(held))
    # Press the button, then look at it while the POST is held on its way.
    pressed = page.evaluate(PRESS_AND_LOOK)
    assert pressed == {"disabled": True, "text": "Creating…"}
    assert len(held) == 1
    page.unroute(re.compile(r"/tournaments/new/"))
    began = time.monotonic()
    held[0].continue_()
    page.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    answered = time.monotonic() - began
    tournament = Tournament.objects.get(name="Workers' cup")
    # The schedule is written by a worker (no schedule work in the request): the page
    # says so at first, then follows the workers.
    assert page.locator("#tournament-status").inner_text() in ("scheduling", "running")
    following = re.compile(r"^(running|finished)$")
    expect(page.locator("#tournament-status")).to_have_text(following, timeout=120_000)
    visit.shot("02-running")

    # No reload from here on: the page follows the workers.
    expect(page.locator("#tournament-status")).to_have_text("finished", timeout=300_000)
    total = tournament.matches.count()
    expect(page.locator("#progress-text")).to_have_text(f"{total} of {total} matches")
    visit.shot("03-finished")
    played_by = set(Match.objects.filter(tournament=tournament).values_list("worker", flat=True))
    assert played_by and all(w.startswith(("w1@", "w2@")) for w in played_by), played_by
    assert ran_here == []
    print(f"creating the tournament answered in {answered:.2f} s")


def hold_posts(held: list[Route]) -> Callable[[Route], None]:
    """A route handler that keeps the form's POST waiting (the test lets it go) and lets
    everything else through."""

    def handle(route: Route) -> None:
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    return handle
