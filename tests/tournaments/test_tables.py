"""People's tables have capacity of their own (issue 42): silent people at every table
slot leave the processes that play bots to the bots (a quick match still gets one and
finishes, real workers on the real broker); one live table per person and at most
TABLE_SLOTS in all hold under concurrent requests; past the cap the answer says "all
tables are busy" (web and API); a table still waiting for its worker can be left."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings as SettingsWrapper

from judge.referee import TimeControl
from tests.tournaments.conftest import REDIS_URL, Workers, first_legal, wait_for
from tests.tournaments.test_shares import register
from tournaments.api import actions
from tournaments.api.actions import request_quick_match
from tournaments.models import Match, Worker
from tournaments.play import dispatch, human_match, human_seat

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def three_slots(settings: SettingsWrapper, redis_broker: None) -> Iterator[redis.Redis]:
    """Three table slots; tables and their messages on this run's own Redis database."""
    settings.TABLE_SLOTS = 3
    settings.JUDGE_TABLE_REDIS_URL = REDIS_URL
    yield redis.Redis.from_url(REDIS_URL)


def person(name: str) -> User:
    return User.objects.create_user(name, password=f"{name}-password-1")


def sit(user: User) -> Match:
    return human_match.request_human_match(user, "oceans11", ["random"], "mini")


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def status_of(match: Match) -> str:
    return str(Match.objects.values_list("status", flat=True).get(pk=match.pk))


def test_silent_people_at_every_table_leave_the_bots_processes_to_the_bots(
    workers: Workers, three_slots: redis.Redis
) -> None:
    workers.env["TABLE_SLOTS"] = "3"
    workers.start("bots", processes=1)
    workers.start("tables", "-Q", "tables", "--pool", "threads", processes=3)
    people = [person(name) for name in ("ann", "ben", "cat", "dan")]
    tables = [sit(someone) for someone in people[:3]]
    with pytest.raises(human_match.TablesBusy, match="all 3 tables are busy; try again"):
        sit(people[3])

    def all_seated() -> bool:
        rows = Match.objects.filter(pk__in=[t.pk for t in tables])
        return all(m.status == Match.Status.RUNNING for m in rows)

    wait_for(all_seated, 120, "the tables worker to seat three silent people")
    played_by = set(Match.objects.filter(pk__in=[t.pk for t in tables]).values_list("worker"))
    assert {name.split("@")[0] for (name,) in played_by} == {"tables"}
    wait_for(lambda: dispatch.capacity() == 1, 60, "the bots worker's one process to count")
    assert [w.name.split("@")[0] for w in Worker.objects.all()] == ["bots"]

    a, b = first_legal("oceans11", "a"), first_legal("oceans11", "b")
    quick = request_quick_match(a, [b], [], 1, requested_by=people[3])
    wait_for(lambda: status_of(quick) == Match.Status.DONE, 180, "the quick match to finish")
    quick.refresh_from_db()
    assert quick.worker.startswith("bots@")
    # It began while every table still waited on its silent person (a minute a move).
    still = Match.objects.filter(pk__in=[t.pk for t in tables], status=Match.Status.RUNNING)
    assert quick.started_at is not None and still.count() == 3

    for someone, table in zip(people, tables, strict=False):
        left = client_of(someone).post(reverse("web:table_leave", args=[table.pk]))
        assert left.status_code == 200 and left.json()["done"] == "left"
    for table in tables:
        wait_for(lambda t=table: status_of(t) == Match.Status.DONE, 120, "a left table to end")
        table.refresh_from_db()
        assert [(f["bot"], f["kind"]) for f in table.faults] == [(0, "closed")]
    last = sit(people[3])  # a slot is free again
    assert human_match.leave_table(last) in ("cancelled", "left")
    wait_for(lambda: not human_match.live_tables().exists(), 120, "the last table to end")


def test_a_silent_person_times_out_across_a_stall_of_the_tables_worker_not_voided(
    workers: Workers, three_slots: redis.Redis
) -> None:
    """A stall of the worker voids a bots' match whose wall clock ran out across it; a
    person's table is not voided (it would seat a silent person again and again): the
    person times out as without the stall."""
    table = sit(person("ann"))  # queued: its clocks made short before a worker takes it
    clocks = TimeControl(startup_s=10, move_s=10, bank_s=0).to_json()
    Match.objects.filter(pk=table.pk).update(time_control=clocks)
    tables = workers.start("tables", "-Q", "tables", "--pool", "threads", processes=3)

    def asked() -> bool:
        return any(line["type"] == "act" for line in human_seat.person_lines(table.pk, 0))

    wait_for(asked, 120, "the person to be asked to move")
    os.killpg(tables.pid, signal.SIGSTOP)  # the worker stalls while the person thinks
    time.sleep(2)  # the stall itself (the watchdog calls a gap over 1 s one)
    os.killpg(tables.pid, signal.SIGCONT)
    wait_for(lambda: status_of(table) in ("done", "failed"), 120, "the table to end")
    table.refresh_from_db()
    assert table.status == Match.Status.DONE and "voided" not in table.failure, table.failure
    assert [(f["bot"], f["kind"]) for f in table.faults] == [(0, "timeout")]


def test_a_queued_table_goes_to_the_tables_queue_and_can_be_left(
    three_slots: redis.Redis,
) -> None:
    ann = person("ann")
    table = sit(ann)
    assert status_of(table) == Match.Status.QUEUED  # no tables worker: it waits
    assert three_slots.llen("tables") == 1 and three_slots.llen("interactive") == 0
    with pytest.raises(human_match.AtATable, match="already have a match at a table"):
        sit(ann)
    left = client_of(ann).post(reverse("web:table_leave", args=[table.pk]))
    assert left.status_code == 200 and left.json()["done"] == "cancelled"
    assert status_of(table) == Match.Status.CANCELLED
    again = client_of(ann).post(reverse("web:table_leave", args=[table.pk]))
    assert again.status_code == 409 and "cancelled" in again.json()["error"]
    # The slot and the person are free again; the API leaves a queued table too.
    api = client_of(ann)
    seated = api.post(
        "/api/tables/",
        {"game": "oceans11", "variant": "mini", "house_bots": ["random"]},
        content_type="application/json",
    )
    assert seated.status_code == 201, seated.content
    body = seated.json()
    assert body["status"] == "queued" and body["urls"]["page"].endswith("/table/")
    gone = api.post(body["urls"]["leave"])
    assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
    assert [t["status"] for t in api.get("/api/tables/").json()["results"]] == [
        "cancelled",
        "cancelled",
    ]
    # A queued table seating a bot that is retired meanwhile is cancelled with it.
    theirs = first_legal("oceans11", "theirs")
    table = human_match.request_human_match(ann, "oceans11", [theirs], "mini")
    actions.retire_bot(theirs.bot)
    assert status_of(table) == Match.Status.CANCELLED
    assert "retired" in Match.objects.get(pk=table.pk).failure


def at_once(posts: list[tuple[Client, str, dict[str, Any]]]) -> list[Any]:
    """Every POST sent at the same moment from its own thread; the answers in order."""
    barrier = threading.Barrier(len(posts))
    answers: list[Any] = [None] * len(posts)

    def post(index: int) -> None:
        client, url, data = posts[index]
        try:
            barrier.wait()
            answers[index] = client.post(url, data, content_type="application/json")
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(posts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_one_table_per_person_and_the_cap_hold_under_concurrent_requests(
    three_slots: redis.Redis, settings: SettingsWrapper
) -> None:
    sit_down = {"game": "oceans11", "variant": "mini", "house_bots": ["random"]}
    ann = person("ann")
    answers = at_once([(client_of(ann), "/api/tables/", sit_down) for _ in range(6)])
    assert sorted(a.status_code for a in answers) == [201] + [409] * 5
    assert human_match.live_tables().count() == 1

    # Five more people, two requests each at once, for the two slots left.
    others = [person(name) for name in ("ben", "cat", "dan", "eve", "fay")]
    answers = at_once([(client_of(p), "/api/tables/", sit_down) for p in others for _ in "ab"])
    codes = sorted(a.status_code for a in answers)
    assert codes.count(201) == 2 and set(codes) <= {201, 409, 503}, codes
    live = human_match.live_tables()
    assert live.count() == 3 and len(set(live.values_list("requested_by", flat=True))) == 3
    assert sorted(live.values_list("table_slot", flat=True)) == [0, 1, 2]
    refused = next(a for a in answers if a.status_code == 503)
    assert refused.json()["detail"] == "all 3 tables are busy; try again in a few minutes"
    assert int(refused["Retry-After"]) > 0

    # The web form says it too, with the same status.
    form = client_of(person("gus")).post(
        "/play/oceans11/", {"variant": "mini", "opponent_1": "house:random"}
    )
    assert form.status_code == 503 and int(form["Retry-After"]) > 0
    assert "All 3 tables are busy; try again in a few minutes." in form.content.decode()
    settings.TABLE_SLOTS = 0  # a server that seats nobody says so
    none = client_of(person("hal")).post(
        "/play/oceans11/", {"variant": "mini", "opponent_1": "house:random"}
    )
    assert none.status_code == 503
    assert "This server seats nobody at tables (TABLE_SLOTS=0)." in none.content.decode()


def test_several_accounts_of_one_person_hold_one_table_not_every_slot(
    three_slots: redis.Redis,
) -> None:
    """The adversary: one person registers three accounts from one network and asks for a
    table from each at once, to take every slot. One gets a table; the others are told
    why; someone from another network still sits down."""
    sit_down = {"game": "oceans11", "variant": "mini", "house_bots": ["random"]}
    accounts = [register(f"sock{n}", f"198.51.100.{n + 10}") for n in range(3)]
    answers = at_once([(client_of(a), "/api/tables/", sit_down) for a in accounts])
    assert sorted(a.status_code for a in answers) == [201, 409, 409], answers
    refused = [a.json()["detail"] for a in answers if a.status_code == 409]
    assert refused == [human_match.OTHER_ACCOUNT] * 2
    assert human_match.live_tables().count() == 1

    # Another account of the same person, asking later through the web form: refused too.
    form = client_of(accounts[0] if answers[0].status_code != 201 else accounts[1]).post(
        "/play/oceans11/", {"variant": "mini", "opponent_1": "house:random"}
    )
    assert form.status_code == 409, form.status_code
    assert "Another account of yours (seen from your network)" in form.content.decode()

    stranger = register("stranger", "203.0.113.9")
    assert (
        client_of(stranger)
        .post("/api/tables/", sit_down, content_type="application/json")
        .status_code
        == 201
    )
    assert human_match.live_tables().count() == 2
