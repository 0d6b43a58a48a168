"""Every admin list (and a match's page) runs the same queries for 2 rows as for 12."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.tournaments.test_api_queries import anchor, make_rows
from tournaments import admin
from tournaments.models import Match

PAGES = [
    "/admin/tournaments/bot/",
    "/admin/tournaments/bot/?q=bot1",
    "/admin/tournaments/botversion/",
    "/admin/tournaments/tournament/",
    "/admin/tournaments/match/",
    "/admin/tournaments/match/?status__exact=done",
    "/admin/tournaments/seat/",
    "/admin/tournaments/rating/",
    "/admin/tournaments/ratinghistory/",
    "/admin/tournaments/match/{match}/change/",
]


def costs(client: Client) -> dict[str, int]:
    match = Match.objects.order_by("id").first()
    assert match is not None
    found = {}
    for page in PAGES:
        url = page.format(match=match.pk)
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200, url
        found[page] = len(captured)
    return found


def test_admin_lists_cost_the_same_for_few_and_many_rows(db: None, settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    admin = User.objects.create_superuser("admin", password="long enough password")
    client = Client()
    client.force_login(admin)
    rival = anchor(admin)
    make_rows(admin, rival, 2, 0)
    costs(client)  # caches warmed (content types, the admin's log entries)
    few = costs(client)
    make_rows(admin, rival, 10, 2)
    assert costs(client) == few
    page = client.get("/admin/tournaments/match/").content.decode()
    assert page.count('<th class="field-id"') >= 12  # the rows were listed


def test_admin_lists_filter_by_the_registrys_games_and_stop_counting_at_the_cap(
    db: None, settings: Any, monkeypatch: Any
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client = Client()
    client.force_login(User.objects.create_superuser("admin", password="long enough password"))
    Match.objects.bulk_create(Match(game="oceans11") for _ in range(3))
    Match.objects.create(game="fifteen35")
    page = client.get("/admin/tournaments/match/").content.decode()
    assert "?game=bigtwo" in page  # offered though no match plays it: from the registry
    assert "4 matches" in page
    only = client.get("/admin/tournaments/match/?game=fifteen35").content.decode()
    assert "1 match" in only and only.count('<th class="field-id"') == 1
    monkeypatch.setattr(admin, "COUNT_CAP", 2)
    capped = client.get("/admin/tournaments/match/").content.decode()
    assert "more than 2 matches" in capped
