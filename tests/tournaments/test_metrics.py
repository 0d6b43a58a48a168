"""/metrics scraped for real: a gunicorn of several processes answers with the figures of
the whole site, read at scrape time from the database and from the counters that real
Celery workers (bots in Docker) add to in Redis (docs/deploy.md, "Metrics and health")."""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.tournaments.conftest import CRASHER, REDIS_URL, Workers, first_legal, uploaded, wait_for
from tests.tournaments.gunicorn_server import gunicorn
from tournaments.api import actions
from tournaments.competitions import competition_actions
from tournaments.models import FieldPass, Match, Tournament
from tournaments.play import ops_counters
from tournaments.rating.stored import field_view

GAME = "oceans11"
TOKEN = "metrics-token-for-the-tests-0123"
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int, token: str | None = TOKEN) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    conn.request("GET", "/metrics", headers=headers)
    answer = conn.getresponse()
    return answer.status, answer.read().decode()


def samples(text: str) -> Samples:
    """Every sample by (name, sorted labels), parsed by prometheus-client's own parser."""
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found: Samples, name: str, **labels: str) -> float:
    return found[(name, tuple(sorted(labels.items())))]


def expected_waits(tournament: Tournament) -> list[float]:
    """Each match's wait as the test reckons it: from its queueing to its claim."""
    waits = []
    for match in Match.objects.filter(tournament=tournament):
        assert match.started_at is not None and match.enqueued_at is not None
        waits.append(max(0.0, (match.started_at - match.enqueued_at).total_seconds()))
    return sorted(waits)


@pytest.mark.docker
def test_the_metrics_of_a_site_whose_workers_played_real_matches(
    workers: Workers, settings: SettingsWrapper, tmp_path: Path
) -> None:
    settings.JUDGE_TABLE_REDIS_URL = REDIS_URL  # this process reads the workers' counters
    workers.env["JUDGE_SANDBOX"] = "docker"
    entrants = [
        first_legal(GAME, "first"),
        first_legal(GAME, "second"),
        uploaded(GAME, "crash", CRASHER),
    ]
    tournament = competition_actions.create_tournament(
        None, "cup", GAME, entrants, games_per_pairing=2, seed=5
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    quick = actions.request_quick_match(entrants[0], [entrants[1]], [], games=1, seed=1)
    web = {"METRICS_TOKEN": TOKEN, "CELERY_BROKER_URL": REDIS_URL, "JUDGE_SANDBOX": "docker"}

    with gunicorn(tmp_path, workers=2, **web) as port:
        # No worker yet: everything waits, nothing is in flight, no capacity.
        status, text = scrape(port, token=None)
        assert status == 403 and "METRICS_TOKEN" in text
        assert scrape(port, token="wrong-token-of-the-same-length-x")[0] == 403
        status, text = scrape(port)
        assert status == 200, text
        before = samples(text)
        assert value(before, "cardjudge_queue_depth", kind="tournament") == 3
        assert value(before, "cardjudge_queue_depth", kind="quick") == 1
        assert value(before, "cardjudge_queue_depth", kind="ladder") == 0
        assert value(before, "cardjudge_queue_oldest_wait_seconds", kind="tournament") > 0
        assert value(before, "cardjudge_in_flight", kind="tournament") == 0
        assert value(before, "cardjudge_capacity_processes") == 0
        assert value(before, "cardjudge_counters_up") == 1
        assert value(before, "cardjudge_match_attempts_total", outcome="stored") == 0

        workers.start("one")
        workers.start("two", processes=2)
        wait_for(lambda: tournament_done(tournament), 240, "the tournament to finish")
        ended = ("done", "failed", "cancelled")
        wait_for(lambda: Match.objects.get(pk=quick.pk).status in ended, 300, "the quick match")
        ended_quick = Match.objects.get(pk=quick.pk)
        assert ended_quick.status == "done", (ended_quick.status, ended_quick.failure)
        field_view.refresh(GAME)

        def counted() -> bool:  # the counters are added just after each task returns
            totals = ops_counters.totals()
            return totals.get((ops_counters.ATTEMPTS, "stored"), 0) >= 4

        wait_for(counted, 60, "the workers' counters of four stored matches")
        after = samples(scrape(port)[1])

    matches = list(Match.objects.filter(tournament=tournament))
    assert [m.status for m in matches] == ["done"] * 3
    stored_faults: dict[str, int] = {}
    for match in [*matches, Match.objects.get(pk=quick.pk)]:
        for fault in match.faults:
            stored_faults[fault["kind"]] = stored_faults.get(fault["kind"], 0) + 1
    assert stored_faults, "the crashing bot earned no fault"
    for kind in ops_counters.FAULT_KINDS:
        found = value(after, "cardjudge_bot_faults_total", kind=kind)
        assert found == stored_faults.get(kind, 0), kind
    assert value(after, "cardjudge_match_attempts_total", outcome="stored") == 4
    assert value(after, "cardjudge_match_attempts_total", outcome="failed") == 0
    # Each of the three bots ran in a container of its own (pooled ones serve later seatings).
    assert value(after, "cardjudge_container_starts_total") >= 3
    assert value(after, "cardjudge_capacity_processes") == 3
    assert value(after, "cardjudge_workers_live") == 2
    for kind in ("tournament", "quick", "check", "table"):
        assert value(after, "cardjudge_queue_depth", kind=kind) == 0
        assert value(after, "cardjudge_in_flight", kind=kind) == 0
    waits = expected_waits(tournament)
    assert value(after, "cardjudge_wait_samples", kind="tournament") == 3
    median = value(after, "cardjudge_wait_seconds", kind="tournament", quantile="0.5")
    assert median == pytest.approx(waits[1], abs=1e-3)
    assert value(after, "cardjudge_wait_seconds", kind="tournament", quantile="0.95") == (
        pytest.approx(waits[2], abs=1e-3)
    )
    assert value(after, "cardjudge_wait_samples", kind="quick") == 1
    passed = FieldPass.objects.get(game=GAME)
    assert value(after, "cardjudge_field_pass_seconds", game=GAME) == pytest.approx(passed.seconds)


def tournament_done(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status == Tournament.Status.FINISHED


def test_metrics_answer_a_staff_session_and_refuse_others(db: None) -> None:
    client = Client()
    assert client.get("/metrics").status_code == 403
    member = User.objects.create_user("member", password="x" * 12)
    client.force_login(member)
    assert client.get("/metrics").status_code == 403
    staff = User.objects.create_user("staff", password="x" * 12, is_staff=True)
    client.force_login(staff)
    answer = client.get("/metrics")
    assert answer.status_code == 200
    found = samples(answer.content.decode())
    # No Redis here (a memory broker): the database's figures, and the counters said down.
    assert value(found, "cardjudge_counters_up") == 0
    assert value(found, "cardjudge_queue_depth", kind="check") == 0
