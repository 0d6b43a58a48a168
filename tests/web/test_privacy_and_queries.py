"""Owners' secrets stay theirs on every page, and pages cost the same queries at any size."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.web.conftest import (
    SECRET_CODE,
    SECRET_LOG,
    make_user,
    played_tournament,
    player_source,
    quick_bot,
    uploaded_bot,
)
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.models import Bot, BotVersion, Match, Tournament
from tournaments.play import tasks, version_checks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]


def every_page(tournament: Tournament, version: BotVersion) -> Iterator[str]:
    """Every page and data address that shows anything about this tournament and bot."""
    bot = version.bot
    yield reverse("web:home")
    yield reverse("web:leaderboard", args=[bot.game])
    yield reverse("web:bot", args=[bot.pk])
    yield reverse("web:version", args=[version.pk])
    yield reverse("web:version", args=[version.pk]) + "?part=status"
    yield reverse("web:tournaments")
    yield reverse("web:tournament", args=[tournament.pk])
    yield reverse("web:tournament", args=[tournament.pk]) + "?part=live"
    for match in tournament.matches.all():
        yield reverse("web:match", args=[match.pk])
        frames = reverse("web:frames", args=[match.pk])
        for game in range(len((match.result or {})["games"])):
            for seat in ("all", *map(str, range(tournament.table_size))):
                yield f"{frames}?game={game}&seat={seat}"


def test_only_the_owner_ever_sees_a_bots_code_and_logs() -> None:
    owner, other = make_user("owner"), make_user("other")
    version = uploaded_bot(owner, "oceans11", "secretive")
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PENDING)
    assert version_checks.check_version(version.pk) == BotVersion.Status.ACCEPTED
    entrants = [version, bot_actions.house_version("oceans11", "random")]
    tournament = played_tournament(owner, "oceans11", entrants, duplicate=True)
    pages = list(every_page(tournament, version))
    visitor, stranger, author = Client(), Client(), Client()
    stranger.force_login(other)
    author.force_login(owner)
    for client in (visitor, stranger):
        for page in pages:
            answer = client.get(page)
            assert answer.status_code == 200, page
            text = answer.content.decode()
            assert SECRET_CODE not in text and SECRET_LOG not in text, page
    assert stranger.get(reverse("web:upload_version", args=[version.bot_id])).status_code == 404
    bot_page = author.get(reverse("web:bot", args=[version.bot_id])).content.decode()
    assert SECRET_CODE in bot_page and SECRET_LOG in bot_page
    check_page = author.get(reverse("web:version", args=[version.pk])).content.decode()
    assert SECRET_LOG in check_page
    match_page = author.get(reverse("web:match", args=[tournament.matches.first().pk]))  # type: ignore[union-attr]
    assert SECRET_LOG in match_page.content.decode()


def queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200, path
    return len(captured)


def test_pages_cost_the_same_queries_for_few_and_many_rows() -> None:
    owner = make_user("owner")
    client = Client()
    client.force_login(owner)
    mine = quick_bot(owner, "bigtwo", "mine", "greedy")
    small = played_tournament(
        owner,
        "bigtwo",
        [mine, quick_bot(owner, "bigtwo", "b1"), quick_bot(None, "bigtwo", "b2")],
        table_size=2,
    )
    pages = {
        "home": reverse("web:home"),
        "leaderboard": reverse("web:leaderboard", args=["bigtwo"]),
        "bot": reverse("web:bot", args=[mine.bot_id]),
        "tournaments": reverse("web:tournaments"),
        "new tournament": reverse("web:tournament_create") + "?game=bigtwo",
        "version": reverse("web:version", args=[mine.pk]),
    }
    before = {name: queries(client, path) for name, path in pages.items()}
    small_page = queries(client, reverse("web:tournament", args=[small.pk]))
    small_live = queries(client, reverse("web:tournament", args=[small.pk]) + "?part=live")
    match = Match.objects.filter(tournament=small).first()
    small_match = queries(client, reverse("web:match", args=[match.pk]))  # type: ignore[union-attr]

    more = [mine, *(quick_bot(owner, "bigtwo", f"c{i}", "greedy") for i in range(5))]
    big = played_tournament(owner, "bigtwo", more, table_size=3)
    after = {name: queries(client, path) for name, path in pages.items()}
    assert after == before
    assert queries(client, reverse("web:tournament", args=[big.pk])) == small_page
    assert queries(client, reverse("web:tournament", args=[big.pk]) + "?part=live") == small_live
    match = Match.objects.filter(tournament=big).first()
    assert queries(client, reverse("web:match", args=[match.pk])) == small_match  # type: ignore[union-attr]


def test_a_running_match_shows_no_replay_and_bad_frame_requests_say_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda *_, **__: None)  # none plays
    owner = make_user("owner")
    entrants = [quick_bot(owner, "oceans11", f"o{i}") for i in range(2)]
    tournament = competition_actions.create_tournament(owner, "waiting", "oceans11", entrants)
    competition_actions.start_tournament(tournament.pk)
    match = Match.objects.get(tournament=tournament)
    client = Client()
    page = client.get(reverse("web:match", args=[match.pk])).content.decode()
    assert "The replay is shown once the match is over." in page
    assert 'data-part="status" data-target="match-status"' in page  # it follows the match
    status = f"{reverse('web:match', args=[match.pk])}?part=status"
    assert 'data-waiting="1"' in client.get(status).content.decode()
    assert client.get(reverse("web:frames", args=[match.pk])).status_code == 404
    tasks.play_match(match.pk)
    part = client.get(status).content.decode()
    assert 'data-waiting="0"' in part and ">done<" in part
    assert "live.js" not in client.get(reverse("web:match", args=[match.pk])).content.decode()
    frames = reverse("web:frames", args=[match.pk])
    assert client.get(f"{frames}?seat=1").json()["perspective"] == 1
    answer = client.get(f"{frames}?seat=7")
    assert answer.status_code == 400
    assert "choose 'all' or a seat from 0 to 1" in answer.json()["error"]
    answer = client.get(f"{frames}?game=9")
    assert answer.status_code == 400 and "this match has games 0 to" in answer.json()["error"]


def test_an_owner_uploads_a_new_version_and_the_same_code_again(tmp_path: Path) -> None:
    owner = make_user("owner")
    version = uploaded_bot(owner, "oceans11", "twice")
    client = Client()
    client.force_login(owner)
    address = reverse("web:upload_version", args=[version.bot_id])
    upload = SimpleUploadedFile("bot.py", player_source().encode() + b"# v2\n")
    answer = client.post(address, {"code": upload})
    second = BotVersion.objects.get(bot=version.bot, number=2)
    assert answer.headers["Location"] == reverse("web:version", args=[second.pk])
    assert second.status == BotVersion.Status.ACCEPTED  # checked at once (eager tasks)
    again = SimpleUploadedFile("bot.py", player_source().encode() + b"# v2\n")
    answer = client.post(address, {"code": again}, follow=True)
    assert "This code is already version 2" in answer.content.decode()
    assert version.bot.versions.count() == 2
    taken = client.post(
        reverse("web:upload"),
        {"game": "oceans11", "name": "twice", "code": SimpleUploadedFile("b.py", b"x = 1\n")},
    )
    assert "you already have a oceans11 bot named" in taken.content.decode()


def test_only_the_tournaments_owner_may_cancel_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda *_, **__: None)  # none plays
    owner, other = make_user("owner"), make_user("other")
    entrants = [quick_bot(owner, "oceans11", f"o{i}") for i in range(3)]
    tournament = competition_actions.create_tournament(owner, "to cancel", "oceans11", entrants)
    competition_actions.start_tournament(tournament.pk)
    cancel = reverse("web:tournament_cancel", args=[tournament.pk])
    stranger, author = Client(), Client()
    stranger.force_login(other)
    author.force_login(owner)
    page = reverse("web:tournament", args=[tournament.pk])
    assert "Cancel the queued matches" not in stranger.get(page).content.decode()
    assert stranger.post(cancel).status_code == 404
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING
    assert "Cancel the queued matches" in author.get(page).content.decode()
    assert author.post(cancel).status_code == 302
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.CANCELLED
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.CANCELLED}


def test_a_too_large_upload_is_refused_and_nothing_is_stored(settings: SettingsWrapper) -> None:
    settings.BOT_UPLOAD_MAX_BYTES = 1000
    owner = make_user("owner")
    client = Client()
    client.force_login(owner)
    big = SimpleUploadedFile("big.py", b"x = 1\n" * 1000)
    answer = client.post(reverse("web:upload"), {"game": "bigtwo", "name": "big", "code": big})
    assert answer.status_code == 200
    assert "the upload is 1001 bytes; the limit is 1000 bytes" in answer.content.decode()
    assert not BotVersion.objects.exists() and not Bot.objects.exists()


def test_the_tournament_form_says_what_is_wrong() -> None:
    owner = make_user("owner")
    client = Client()
    client.force_login(owner)
    address = reverse("web:tournament_create") + "?game=fifteen35"
    form = {
        "game": "fifteen35",
        "name": "bad",
        "variant": "standard",
        "table_size": "3",
        "participants": ["house:random", "house:greedy"],
        "games_per_pairing": "1",
        "rounds": "1",
        "move_s": "1",
        "bank_s": "5",
        "startup_s": "5",
        "options": '{"hands": 1, "jokers": 2}',
    }
    text = client.post(address, form).content.decode()
    assert "a table of 3 needs at least 3 participants" in text
    assert "fifteen35 has no option &#x27;jokers&#x27;" in text
    text = client.post(address, {**form, "options": '{"hands": 100000}'}).content.decode()
    assert "fifteen35 option &#x27;hands&#x27; must be a whole number from 0 to 64" in text
    assert "<code>hands</code>: hands in one game (0: one per player) (0 to 64; default 0)" in text
    text = client.post(address, {**form, "options": "{hands: 1}"}).content.decode()
    assert "not JSON (Expecting property name enclosed in double quotes" in text
    assert not Tournament.objects.exists()
