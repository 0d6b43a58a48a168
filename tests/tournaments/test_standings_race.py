"""A tournament's table counts every finished match it reads for its seats, even while
other matches finish during the fit: the stack test once read a finished round robin's
standings summing 10 seats for 12 (a match finished between the fit's two reads, was
counted as read, and the finished tournament's cached table kept it out)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from tournaments.competitions.standings import fit_table
from tournaments.models import Bot, BotVersion, Match, Seat, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

MATCHES = 150


def entrants() -> list[BotVersion]:
    versions = []
    for name in ("north", "south"):
        bot = Bot.objects.create(game="oceans11", name=name)
        versions.append(
            BotVersion.objects.create(
                bot=bot, number=1, content_hash=name, status=BotVersion.Status.ACCEPTED
            )
        )
    return versions


def running_tournament(versions: list[BotVersion]) -> Tournament:
    """MATCHES matches of two seats, all with their results but still running."""
    tournament = Tournament.objects.create(
        name="race cup", game="oceans11", table_size=2, matches_total=MATCHES,
        status=Tournament.Status.RUNNING,
    )  # fmt: skip
    tournament.participants.set(versions)
    for number in range(MATCHES):
        match = Match.objects.create(
            tournament=tournament, number=number, game="oceans11",
            status=Match.Status.RUNNING,
            result={"scores": [1, 0], "places": [1, 2], "games": []},
        )  # fmt: skip
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version=v) for i, v in enumerate(versions)
        )
    return tournament


def finish_one_by_one(tournament: Tournament, done: threading.Event) -> None:
    try:
        for pk in tournament.matches.order_by("number").values_list("pk", flat=True):
            Match.objects.filter(pk=pk).update(status=Match.Status.DONE)
    finally:
        connection.close()
        done.set()


def test_every_match_a_fit_reads_counts_for_its_seats_while_others_finish() -> None:
    tournament = running_tournament(entrants())
    done = threading.Event()
    finisher = threading.Thread(target=finish_one_by_one, args=(tournament, done))
    finisher.start()
    fits = []
    while not done.is_set():
        rows, _, read = fit_table(tournament, tournament.participants.all())
        fits.append((read, sum(row.matches for row in rows)))
    finisher.join()
    rows, _, read = fit_table(tournament, tournament.participants.all())
    fits.append((read, sum(row.matches for row in rows)))
    assert fits[-1] == (MATCHES, 2 * MATCHES)
    assert len(fits) >= 2
    short = [(read, seats) for read, seats in fits if seats != 2 * read]
    assert not short, f"fits whose seats miss matches they read: {short[:5]} of {len(fits)}"
