"""Issue 32: a seeded site whose rows are real, and every page of it answering 200.

bench/service/_seeded_site.py seeds the benches' big sites: real matches from the match library
(played by the engines), re-seated onto the site's bots, copied with their games, units,
faults, timings, seat logs and replay files, in tournaments with entrants, then rated
by the service's own recompute. Here a small one (300 matches, tables up to 4 seats)
is checked for those rows and every kind of page is visited on it: the pages, the
tournament pages with their live part, the API (standings and head-to-head included),
the replay and its frames, and the admin's lists and forms.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from bench.service._seeded_site import Shape, seed
from tournaments.models import Match, RatingHistory, Replay, Seat, Tournament
from tournaments.play import replay_store
from tournaments.rating.stored.recompute import recompute

pytestmark = pytest.mark.django_db

SHAPE = Shape(matches=300, users=12, bots=36, tournaments=6, entrants=6, per_cell=1, largest=4)


@pytest.fixture
def site(settings: Any, tmp_path: Any) -> dict[str, Any]:
    settings.REPLAY_ROOT = tmp_path
    return seed(SHAPE)


def test_every_seeded_match_is_a_real_one_with_its_replay(site: dict[str, Any]) -> None:
    matches = Match.objects.select_related("tournament").prefetch_related("seats__version__bot")
    assert matches.count() == SHAPE.matches
    for match in matches.order_by("id"):
        seats = list(match.seats.all())
        assert match.tournament is not None and len(seats) == match.tournament.table_size
        result: dict[str, Any] = match.result or {}
        assert result["games"] and len(match.units.split()) == match.games
        assert set(match.timings) >= {"sandbox_start", "referee"}
        record = replay_store.load(Replay.objects.get(match=match))
        header = record["header"]
        assert header["seed"] == match.seed and header["game"] == match.game
        names = [f"{s.version.bot.name} v{s.version.number}" for s in seats]
        assert [bot["name"] for bot in header["bots"]] == names
        assert record["result"]["places"] == result["places"]
    assert any(seat.log for seat in Seat.objects.all()), "no seed bot wrote to its log"


def test_seeded_replay_files_are_single_gzip_members(site: dict[str, Any]) -> None:
    """A spliced file is one gzip member (what a browser reads) with the right length
    and checksum: gzip checks both when it decompresses."""
    replay = Replay.objects.order_by("match_id").first()
    assert replay is not None
    data = replay_store.compressed(replay)
    assert data[:2] == b"\x1f\x8b" and replay.size == len(data)
    decompressor = __import__("zlib").decompressobj(31)
    text = decompressor.decompress(data)
    assert decompressor.eof and decompressor.unused_data == b""
    assert json.loads(text) == json.loads(gzip.decompress(data))


def test_seeded_tournaments_have_entrants_who_play_their_matches(site: dict[str, Any]) -> None:
    for tournament in Tournament.objects.all():
        entrants = set(tournament.participants.values_list("id", flat=True))
        assert len(entrants) >= tournament.table_size
        seated = set(
            Seat.objects.filter(match__tournament=tournament).values_list("version", flat=True)
        )
        assert seated and seated <= entrants


def test_seeded_ratings_are_what_the_service_computes(site: dict[str, Any]) -> None:
    report = recompute()
    assert report.matches == SHAPE.matches
    assert not report.differences and not report.record_differences
    assert not report.flag_differences
    assert RatingHistory.objects.count() == Seat.objects.count()


def pages(site: dict[str, Any]) -> list[str]:
    """One address of every page kind (every tournament's, one match per game and table
    size), for anyone."""
    busiest = site["busiest_bot"]
    version = Seat.objects.filter(bot_id=busiest).values_list("version_id", flat=True)[0]
    games = sorted(set(Match.objects.values_list("game", flat=True)))
    found = ["/", "/tournaments/", "/rules/", "/api/games/", "/api/bots/", "/api/versions/"]
    found += ["/api/tournaments/", "/api/matches/", f"/bots/{busiest}/", f"/versions/{version}/"]
    found += [f"/api/bots/{busiest}/", f"/api/bots/{busiest}/rating-history/"]
    found += [f"/api/versions/{version}/", f"/api/matches/?version={version}"]
    for game in games:
        found += [f"/leaderboard/{game}/", f"/api/leaderboards/{game}/"]
    for pk in Tournament.objects.values_list("pk", flat=True):
        found += [f"/tournaments/{pk}/", f"/tournaments/{pk}/?part=live"]
        found += [f"/api/tournaments/{pk}/", f"/api/tournaments/{pk}/standings/"]
        found += [f"/api/tournaments/{pk}/head-to-head/"]
    for pk in one_match_per_table():
        found += [f"/matches/{pk}/", f"/api/matches/{pk}/", f"/api/matches/{pk}/replay/"]
        found += [f"/matches/{pk}/frames/?game=1&seat=all", f"/matches/{pk}/frames/?seat=0"]
    return found


def one_match_per_table() -> list[int]:
    first: dict[tuple[str, int], int] = {}
    rows = Match.objects.order_by("id").values_list("pk", "game", "tournament__table_size")
    for pk, game, size in rows:
        first.setdefault((game, size or 0), pk)
    return list(first.values())


def admin_pages() -> list[str]:
    match = Match.objects.order_by("id").values_list("pk", flat=True)[0]
    tournament = Tournament.objects.values_list("pk", flat=True)[0]
    kinds = ["match", "tournament", "bot", "botversion", "rating", "ratinghistory", "seat"]
    found = [f"/admin/tournaments/{kind}/" for kind in kinds]
    found += [f"/admin/tournaments/match/{match}/change/"]
    found += [f"/admin/tournaments/tournament/{tournament}/change/"]
    return found


def statuses(client: Client, paths: list[str]) -> dict[str, int]:
    return {path: client.get(path).status_code for path in paths}


def test_every_page_answers_200_on_the_seeded_site(site: dict[str, Any]) -> None:
    anyone = Client(raise_request_exception=False)
    answers = statuses(anyone, pages(site))
    assert len(answers) > 60
    assert {path: code for path, code in answers.items() if code != 200} == {}
    owner = Client(raise_request_exception=False)
    seat = Seat.objects.exclude(log="").select_related("bot").first()
    assert seat is not None
    owner.force_login(User.objects.get(pk=seat.bot.owner_id or 0))
    page = owner.get(f"/matches/{seat.match_id}/")
    assert page.status_code == 200
    staff = Client(raise_request_exception=False)
    staff.force_login(User.objects.create_superuser("seeded-admin", password="x" * 20))
    admin = statuses(staff, admin_pages())
    assert {path: code for path, code in admin.items() if code != 200} == {}


@pytest.mark.django_db(transaction=True)
def test_seeding_with_worker_processes_gives_the_one_process_ratings(
    settings: Any, tmp_path: Any
) -> None:
    """processes=2 (the big benches'): the games rated in worker processes
    (recompute_and_store's own option) while a thread writes the replays and tables;
    the ratings, records, flags and every history row, numbered per bot in match order,
    are those of the one-process replay."""
    settings.REPLAY_ROOT = tmp_path
    indexes = _indexes()
    seed(SHAPE, processes=2)
    assert _indexes() == indexes  # dropped while loading, made again as they were
    changes: list[tuple[int, int, float, float]] = []
    report = recompute(changes.append)
    assert report.matches == SHAPE.matches
    assert not report.differences and not report.record_differences
    assert not report.flag_differences
    stored = RatingHistory.objects.values_list("match_id", "bot_id", "before", "after")
    assert sorted(stored) == sorted(changes)
    numbered = RatingHistory.objects.order_by("bot_id", "seq").values_list(
        "bot_id", "seq", "match_id"
    )
    last: dict[int, tuple[int, int]] = {}
    for bot, seq, match in numbered:
        assert (seq, match) > last.get(bot, (0, 0)) and seq == last.get(bot, (0, 0))[0] + 1
        last[bot] = (seq, match)
    assert Replay.objects.count() == SHAPE.matches
    assert all((tmp_path / name).exists() for name in Replay.objects.values_list("name", flat=True))


def _indexes() -> set[str]:
    """Every index of the tables the seeder loads with their indexes dropped."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = ANY("
            "ARRAY['tournaments_match', 'tournaments_seat', 'tournaments_ratinghistory']"
            "::regclass[])"
        )
        return {row[0] for row in cursor.fetchall()}
