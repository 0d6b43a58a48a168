"""A new version's check, in the local sandbox: a good bot passes at every table size of
every game; a failing bot is told why (timeout at which move, which illegal action, the
crash's traceback, not exiting after the match). Then a quick match through the API."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from judge.games import GAMES, game_class
from tournaments.api import actions
from tournaments.bots import bot_actions
from tournaments.bots.uploads import read_upload
from tournaments.models import BotVersion, Match, bundle_code
from tournaments.play import runner, version_checks

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning")

GOOD = "import botkit\nbotkit.run(lambda observation, legal: len(legal) - 1)\n"
#: A bot that answers ``text`` to its ``move``-th request and plays the first action before.
MISBEHAVES = """\
import json, sys, time
asked = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        asked += 1
        if asked == %(move)d:
            %(then)s
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        %(at_end)s
"""
REPO = Path(__file__).resolve().parents[2]


def check(game: str, source: str) -> dict[str, Any]:
    code, _ = bundle_code({"main.py": source.encode()})
    return version_checks.run_check(game, code, 1, lambda: runner.make_backend("local"))


def misbehaving(move: int, then: str, at_end: str = "break") -> str:
    return MISBEHAVES % {"move": move, "then": then, "at_end": at_end}


@pytest.fixture(autouse=True)
def short_clocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        version_checks, "CHECK_TIME_CONTROL", {"startup_s": 5, "move_s": 0.3, "bank_s": 0.2}
    )
    monkeypatch.setattr(version_checks, "EXIT_GRACE_S", 0.5)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_good_bot_passes_at_every_table_size(game: str) -> None:
    report = check(game, GOOD)
    assert report["passed"] and report["verdict"] == "accepted", report["problems"]
    first = [m for m in report["matches"] if not m["further"]]
    standard = [m["players"] for m in first if m["variant"] == "standard"]
    assert standard == list(version_checks.table_sizes(game))
    variants = {m["variant"] for m in first}
    assert variants == set(game_class(game).variants)
    assert [probe["problem"] for probe in report["probes"]] == [""]


def test_a_slow_bot_is_told_at_which_move_it_timed_out() -> None:
    report = check("bigtwo", misbehaving(3, "time.sleep(5)"))
    assert not report["passed"]
    assert re.match(r"timeout \(with 2 players, seat [12], game 1, step \d", report["reason"])
    assert report["matches"][0]["faults"][0]["kind"] == "timeout"


def test_an_illegal_action_is_named() -> None:
    source = misbehaving(
        2, 'print(json.dumps({"type": "action", "action": ["Xx"]}), flush=True); continue'
    )
    report = check("bigtwo", source)
    said = r"illegal action \(with 2 players, seat [12], game 1, step \d"
    assert re.match(said, report["reason"])
    assert "is not one of the legal actions" in report["reason"]
    assert report["reason"].endswith('the bot sent: {"type": "action", "action": ["Xx"]}')
    assert report["matches"][0]["faults"][0]["kind"] == "illegal_action"


def test_a_crash_mid_game_comes_with_its_traceback() -> None:
    report = check("oceans11", misbehaving(2, "{}['missing']"))
    assert re.match(r"crashed \(with 2 players, seat [12], game 1, step \d", report["reason"])
    assert "KeyError: 'missing'" in report["reason"]
    assert "Traceback (most recent call last)" in report["log"]


def test_a_bot_that_cannot_read_a_variant_is_told_which() -> None:
    """Only Oceans 11 five-suits deals cards of the fifth suit, x."""
    fifth_suit = "assert not any(f'\"{r}x\"' in line for r in '23456789TJQKA'), 'what is x?'"
    source = misbehaving(10**6, "pass").replace("asked += 1", f"asked += 1\n        {fifth_suit}")
    report = check("oceans11", source)
    assert [m["variant"] for m in report["matches"] if m["problem"]] == ["five-suits"]
    said = r"crashed \(with 2 players, seat [12], variant five-suits, game 1"
    assert re.match(said, report["reason"])
    assert "AssertionError: what is x?" in report["reason"]


def test_a_bot_that_stays_after_the_match_fails_the_exit_probe() -> None:
    report = check("bigtwo", misbehaving(10**6, "pass", at_end="time.sleep(30)"))
    assert report["matches"][0]["problem"] == ""  # it plays well...
    assert not report["passed"]  # ...but does not exit when told the match is over
    assert "still running" in report["reason"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("local_sandbox")
def test_an_upload_is_checked_and_then_plays_a_quick_match(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.JUDGE_HOUSE_BOTS = "inprocess"
    owner = User.objects.create_user("owner", password="long enough password")
    other = User.objects.create_user("other", password="long enough password")
    client = APIClient()
    client.force_authenticate(owner)
    bot = client.post("/api/bots/", {"game": "bigtwo", "name": "mine"}).json()
    source = (
        b"import sys, botkit\nprint('OWNER-ONLY', file=sys.stderr)\n"
        + GOOD.split("\n", 1)[1].encode()
    )
    upload = SimpleUploadedFile("mine.py", source)
    made = client.post(f"/api/bots/{bot['id']}/versions/", {"file": upload}, format="multipart")
    assert made.status_code == 201
    version = BotVersion.objects.get(pk=made.json()["id"])
    assert version.status == BotVersion.Status.ACCEPTED  # checked in-process, after commit
    assert "OWNER-ONLY" in client.get(f"/api/versions/{version.pk}/").json()["check_report"]["log"]

    quick = client.post(
        "/api/matches/quick/",
        {"version": version.pk, "house_bots": ["random", "greedy"], "games": 1, "seed": 3},
        format="json",
    )
    assert quick.status_code == 202, quick.content
    match = Match.objects.get(pk=quick.json()["id"])
    assert (match.status, match.rated, match.seats.count()) == (Match.Status.DONE, False, 3)
    mine = client.get(f"/api/matches/{match.pk}/").json()
    assert "OWNER-ONLY" in mine["seats"][0]["log"] and mine["result"]["places"]
    client.force_authenticate(other)
    theirs = client.get(f"/api/matches/{match.pk}/")
    assert b"OWNER-ONLY" not in theirs.content
    assert client.get(f"/api/matches/{match.pk}/replay/").status_code == 200
    refused = client.post("/api/matches/quick/", {"version": version.pk}, format="json")
    assert refused.status_code == 403  # a quick match is for one's own versions
    assert bot_actions.house_version("bigtwo", "random").status == BotVersion.Status.ACCEPTED


@pytest.mark.docker
def test_the_check_runs_the_bot_in_docker_too() -> None:
    """What production does: the candidate in a container, its crash explained the same way."""
    backend = runner.make_backend("docker")
    good, _ = bundle_code({"main.py": GOOD.encode()})
    assert version_checks.run_check("bigtwo", good, 1, lambda: backend)["passed"]
    crash, _ = bundle_code({"main.py": b"raise RuntimeError('no container luck')\n"})
    report = version_checks.run_check("bigtwo", crash, 2, lambda: backend)
    assert re.match(r"crashed \(with 2 players, seat [12], at start-up\)", report["reason"])
    assert "RuntimeError: no container luck" in report["reason"]


@pytest.mark.django_db
@pytest.mark.usefixtures("local_sandbox")
def test_a_check_whose_message_was_lost_is_sent_again(
    django_capture_on_commit_callbacks: Any,
) -> None:
    bot = bot_actions.create_bot(None, "bigtwo", "forgotten")
    old = bot_actions.add_version(bot, *bundle_code({"main.py": GOOD.encode()}))
    other = bot_actions.create_bot(User.objects.create(username="busy"), "bigtwo", "running")
    running = bot_actions.add_version(other, *bundle_code({"main.py": GOOD.encode() + b"\n"}))
    long_ago = timezone.now() - dt.timedelta(seconds=version_checks.RESEND_AFTER_S + 1)
    checking = BotVersion.Status.CHECKING
    BotVersion.objects.filter(pk=old.pk).update(status=checking, check_sent_at=long_ago)
    BotVersion.objects.filter(pk=running.pk).update(status=checking, check_sent_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        assert version_checks.resend_lost_checks() == 1  # tasks run in-process here
    old.refresh_from_db()
    running.refresh_from_db()
    assert (old.status, running.status) == (BotVersion.Status.ACCEPTED, checking)
    assert version_checks.check_version(old.pk) == "skipped"  # a second delivery changes nothing


@pytest.mark.docker
def test_the_check_compiles_first_and_shows_the_compilers_errors() -> None:
    backend = runner.make_backend("docker")
    starter = (REPO / "starters" / "cpp" / "main.cpp").read_bytes()
    good, _ = bundle_code({"main.cpp": starter})
    assert version_checks.run_check("oceans11", good, 1, lambda: backend)["passed"]
    broken, _ = bundle_code({"main.cpp": b"int main() {\n  return nothing;\n}\n"})
    report = version_checks.run_check("oceans11", broken, 2, lambda: backend)
    assert not report["passed"] and report["matches"] == []
    assert report["reason"].startswith("the bot does not compile")
    assert "main.cpp:2:" in report["reason"] and "nothing" in report["reason"]


@pytest.mark.django_db
def test_a_missing_runtime_image_ends_the_check_at_once_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    from docker.errors import ImageNotFound

    from sandbox.docker_backend import SandboxError

    def no_image() -> Any:
        try:
            raise ImageNotFound("No such image: cardjudge-bot-js")
        except ImageNotFound as error:
            raise SandboxError(
                "the js runtime image cardjudge-bot-js is missing; run "
                "scripts/build-runtime-images (scripts/bootstrap does it too)"
            ) from error

    monkeypatch.setattr(version_checks, "backend_maker", lambda: no_image)
    owner = User.objects.create(username="author")
    bot = bot_actions.create_bot(owner, "bigtwo", "script")
    source = SimpleUploadedFile("main.py", GOOD.encode())
    with django_capture_on_commit_callbacks(execute=True):
        version, _ = actions.upload_version(bot, read_upload(source.name, source.read()))
    version.refresh_from_db()
    report = version.check_report
    assert version.status == BotVersion.Status.REJECTED, "not left pending: it ends at once"
    assert report["verdict"] == "not checked" and report["host"] is True
    assert "cardjudge-bot-js is missing; run scripts/build-runtime-images" in report["reason"]
    assert "not your bot's fault" in report["reason"]

    # Once mended, the same code uploaded again is checked again.
    monkeypatch.setattr(
        version_checks, "backend_maker", lambda: lambda: runner.make_backend("local")
    )
    with django_capture_on_commit_callbacks(execute=True):
        again, new = actions.upload_version(bot, read_upload(source.name, GOOD.encode()))
    again.refresh_from_db()
    assert (again.pk, new, again.status) == (version.pk, False, BotVersion.Status.ACCEPTED)


def test_a_host_fault_is_told_from_a_passing_one() -> None:
    from judge.cli.sandboxing import SandboxUnavailable

    assert runner.lasting_cause(SandboxUnavailable("cannot use Docker"))
    assert not runner.lasting_cause(RuntimeError("starting a bot container failed: 409"))
    try:
        try:
            raise SandboxUnavailable("no engine")
        except SandboxUnavailable as error:
            raise runner.InfrastructureError("could not start bots [0]") from error
    except runner.InfrastructureError as wrapped:
        assert runner.lasting_cause(wrapped)


@pytest.mark.django_db
def test_the_upload_page_marks_the_languages_no_live_worker_can_run() -> None:
    from django.test import Client

    from tournaments.play import dispatch

    dispatch.announce("w@host", 3, ["python", "cpp"])
    client = Client()
    client.force_login(User.objects.create(username="author"))
    page = client.get("/bots/upload/").content.decode()
    assert dispatch.languages_missing() == ["rust", "java", "js", "go"]
    assert page.count("this server cannot run it now") == 4
