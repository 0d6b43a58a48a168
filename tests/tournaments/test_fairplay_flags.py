"""Issue 43: the audits' flags as staff see them (admin, API), and voiding a version's
results with the ratings recomputed. The matches are played by the real referee and
stored through lease.finish_match (tests/tournaments/fairplay_matches.py): two greedy
bots and a bot that carries each deal's hands to its later rotations."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from tests.tournaments.fairplay_matches import carrying, greedy, round_robins, version_of
from tournaments.fairplay import flags
from tournaments.models import BotVersion, FairPlayFlag, Match, Rating
from tournaments.rating.stored import recompute

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def quick_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def played() -> tuple[BotVersion, BotVersion, BotVersion]:
    """Three owners' bots, the third a carrier, six round robins of 4-deal matches."""
    owners = [User.objects.create_user(f"owner{i}", password="pw") for i in range(3)]
    a, b, cheat = (
        version_of(n, o) for n, o in zip(("fair-a", "fair-b", "carrier"), owners, strict=True)
    )
    round_robins([(a, greedy), (b, greedy), (cheat, carrying({}))], rounds=6, deals=4, seed=43)
    return a, b, cheat


def api_as(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_staff_see_the_flag_and_its_evidence_and_no_one_else_does() -> None:
    *_, cheat = played()
    out = io.StringIO()
    call_command("audit_fair_play", "--game", "bigtwo", stdout=out)
    assert "3 versions tested, 1 flagged" in out.getvalue()
    flag = FairPlayFlag.objects.get()
    assert (flag.version_id, flag.kind, flag.status, flag.current) == (
        cheat.pk,
        "rotation",
        "open",
        True,
    )
    assert flag.p_value <= flag.threshold and flag.effect > 0 and flag.deals == 48
    assert f"flag {flag.pk} (open): {cheat}" in out.getvalue()

    staff = User.objects.create_user("staff", password="pw", is_staff=True, is_superuser=True)
    listed = api_as(staff).get("/api/fairplay/flags/")
    assert listed.status_code == 200
    (shown,) = listed.json()["results"]
    assert shown["version"] == cheat.pk and shown["evidence"]["deals"] == 48
    assert set(shown["evidence"]["evidence"]) <= set(
        Match.objects.filter(seats__version=cheat).values_list("id", flat=True)
    )
    owner = cheat.bot.owner
    assert api_as(owner).get("/api/fairplay/flags/").status_code == 403
    assert api_as(owner).get(f"/api/fairplay/flags/{flag.pk}/").status_code == 403
    assert api_as(None).get("/api/fairplay/flags/").status_code in (401, 403)
    assert api_as(owner).post(f"/api/fairplay/flags/{flag.pk}/void/").status_code == 403

    page = Client()
    page.force_login(staff)
    admin_list = page.get("/admin/tournaments/fairplayflag/")
    assert admin_list.status_code == 200 and str(cheat) in admin_list.content.decode()
    assert page.get(f"/admin/tournaments/fairplayflag/{flag.pk}/change/").status_code == 200
    page.force_login(owner)
    assert page.get("/admin/tournaments/fairplayflag/").status_code == 302  # to sign-in

    # Another run refreshes the flag instead of adding one; staff's decision stands.
    dismissed = api_as(staff).post(
        f"/api/fairplay/flags/{flag.pk}/dismiss/", {"note": "x"}, format="json"
    )
    assert dismissed.status_code == 200 and dismissed.json()["status"] == "dismissed"
    assert flags.audit_rotations("bigtwo").flagged == [cheat.pk]
    assert FairPlayFlag.objects.get().status == "dismissed"


def test_voiding_takes_the_versions_results_out_of_the_ratings_and_recomputes() -> None:
    a, b, cheat = played()
    flags.audit_rotations("bigtwo")
    flag = FairPlayFlag.objects.get()
    theirs = set(Match.objects.filter(seats__version=cheat).values_list("id", flat=True))
    before = dict(Rating.objects.values_list("bot_id", "elo"))
    assert before[cheat.bot_id] > before[a.bot_id]  # it won by cheating

    staff = User.objects.create_user("staff", password="pw", is_staff=True)
    voided = api_as(staff).post(
        f"/api/fairplay/flags/{flag.pk}/void/", {"note": "carried"}, format="json"
    )
    assert voided.status_code == 200
    assert voided.json()["status"] == "voided"
    assert set(voided.json()["evidence"]["voided_matches"]) == theirs
    assert not Match.objects.filter(pk__in=theirs, rated=True).exists()
    assert not Match.objects.filter(pk__in=theirs, rating_seq__isnull=False).exists()
    assert Match.objects.filter(pk__in=theirs, status="done").count() == len(theirs)  # kept
    assert BotVersion.objects.get(pk=cheat.pk).retired
    after = dict(Rating.objects.values_list("bot_id", "elo"))
    assert cheat.bot_id not in after  # none of its results is rated any more
    assert after[a.bot_id] != before[a.bot_id] and after[b.bot_id] != before[b.bot_id]
    assert recompute.recompute().differences == {}  # the stored ratings are the history's
    again = api_as(staff).post(f"/api/fairplay/flags/{flag.pk}/void/")
    assert again.status_code == 409
