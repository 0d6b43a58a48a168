"""Playing a tournament in this process, match by match, with a progress bar.

Shared by ``run_tournament`` and ``demo``. Matches are claimed exactly as a Celery worker
claims them (``tournaments.play.tasks.play_match``), so workers may play some of the same
tournament at the same time: each match is still played once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Never, TextIO

from django.conf import settings
from tqdm import tqdm

from tournaments.competitions import competition_actions
from tournaments.competitions.standings import tournament_table
from tournaments.config.celery import app as celery_app
from tournaments.models import Match, Tournament
from tournaments.play import lease, runner, tasks

#: How often to look again while other workers hold the last matches (seconds).
POLL_S = 1.0
#: How often the bar of a tournament played by workers looks at its progress (seconds).
FOLLOW_S = 0.3


@contextmanager
def queue_only() -> Iterator[None]:
    """Inside, a task that is sent is queued, not run on the spot, even with no broker.

    With no broker configured Celery runs each task the moment it is sent (eager mode),
    so starting a tournament would play every match inside that one call with nothing to
    show. Here the messages go to the in-memory transport instead (or to the configured
    broker, whose workers may help), and the caller plays the matches itself.
    """
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = eager


def choose_sandbox(warn: Callable[[str], object]) -> str:
    """The sandbox matches will use: Docker when asked for and working, else local.

    A Docker engine that does not answer, or a missing bot image, falls back to local
    processes with a warning saying why and what that means.
    """
    if settings.JUDGE_SANDBOX == "docker":
        try:
            tasks.sandbox_backend()
        except runner.InfrastructureError as error:
            warn(
                f"WARNING: {error}\nWARNING: falling back to local processes: bots run as "
                "this user, NOT isolated. Use this only for bots you trust."
            )
            settings.JUDGE_SANDBOX = "local"
    return str(settings.JUDGE_SANDBOX)


def _next_queued(tournament_id: int) -> int | None:
    queued = Match.objects.filter(tournament_id=tournament_id, status=Match.Status.QUEUED)
    return queued.order_by("number").values_list("id", flat=True).first()


def start(tournament: Tournament) -> Tournament:
    """The tournament started or resumed (``_ready``) unless it is already over."""
    if tournament.status in (
        Tournament.Status.DRAFT,
        Tournament.Status.SCHEDULING,
        Tournament.Status.CANCELLED,
    ):
        return _ready(tournament)
    return tournament


def _ready(tournament: Tournament) -> Tournament:
    """The tournament started (a draft: its schedule written here), its schedule's writing
    finished (scheduling), or resumed (cancelled), with lost leases requeued."""
    if tournament.status == Tournament.Status.DRAFT:
        tournament = competition_actions.start_tournament(tournament.pk)
    elif tournament.status == Tournament.Status.SCHEDULING:  # a start left half-written
        competition_actions.build_schedule(tournament.pk)
    elif tournament.status == Tournament.Status.CANCELLED:
        tournament = competition_actions.resume_tournament(tournament.pk)
    lease.reap_matches()
    tournament.refresh_from_db()
    return tournament


def _play_here(match_id: int) -> None:
    """Play one match as a worker would; if interrupted (Ctrl-C), give it back at once,
    so the next run plays it without waiting for the lease to run out."""
    try:
        tasks.play_match(match_id)
    except KeyboardInterrupt:
        match = Match.objects.filter(pk=match_id, worker=tasks.worker_name(None)).first()
        if match is not None and match.status == Match.Status.RUNNING:
            lease.release_match(match_id, match.attempt, "interrupted (Ctrl-C)")
        raise


def progress_bar(tournament: Tournament, progress: bool, out: TextIO | None) -> tqdm[Never]:
    """A bar of the tournament's matches done (off unless ``progress``), on stderr by default."""
    return tqdm(
        total=tournament.matches_total,
        initial=tournament.matches_done,
        desc=tournament.name[:40],
        unit="match",
        file=out or sys.stderr,
        disable=not progress,
        mininterval=0.5,
        dynamic_ncols=True,
    )


def play(tournament_id: int, *, progress: bool = True, out: TextIO | None = None) -> Tournament:
    """Play every match of the tournament left to play; returns it once it is over."""
    with queue_only():
        tournament = _ready(Tournament.objects.get(pk=tournament_id))
        bar = progress_bar(tournament, progress, out)
        with bar:
            while tournament.status == Tournament.Status.RUNNING:
                match_id = _next_queued(tournament.pk)
                if match_id is None:  # the rest is being played elsewhere (or stalled)
                    bar.set_postfix_str("waiting for matches being played elsewhere")
                    time.sleep(POLL_S)
                    lease.reap_matches()
                else:
                    bar.set_postfix_str("")
                    _play_here(match_id)
                tournament.refresh_from_db()
                bar.update(tournament.matches_done - bar.n)
    return tournament


def follow(tournament_id: int, *, progress: bool = True, out: TextIO | None = None) -> Tournament:
    """Start (or resume) the tournament and follow the workers playing it with a progress
    bar until it is over; this process plays nothing. The reaper (Celery beat) takes back
    matches whose worker vanished."""
    tournament = _ready(Tournament.objects.get(pk=tournament_id))
    bar = progress_bar(tournament, progress, out)
    with bar:
        while tournament.status == Tournament.Status.RUNNING:
            time.sleep(FOLLOW_S)
            tournament.refresh_from_db()
            bar.update(tournament.matches_done - bar.n)
    return tournament


def standings_lines(tournament: Tournament) -> list[str]:
    """The tournament's table as text: place, bot, points, Elo with its 95% interval, and
    a line saying what orders it (points) and what Elo counts instead (games)."""
    table = tournament_table(tournament)
    failed = tournament.matches.filter(status=Match.Status.FAILED).count()
    head = (
        f"{tournament.name} (#{tournament.pk}, {tournament.game}): {tournament.status}, "
        f"{table.matches_done} of {tournament.matches_total} matches played"
        + (f", {failed} failed (see the match pages)" if failed else "")
    )
    lines = [head, f"  {'place':>5}  {'bot':<24} {'points':>7}  {'elo (games)':>11}  95% interval"]
    for row in table.rows:
        version = table.versions[row.participant]
        name = f"{version.bot.name} v{version.number}"
        lines.append(
            f"  {row.place:>5}  {name:<24} {row.points:>7.1f}  {row.elo:>11.0f}  "
            f"{row.elo_low:.0f} to {row.elo_high:.0f}"
        )
    return [*lines, ORDER_NOTE]


#: The one line under the printed table that says why its two figures can disagree.
ORDER_NOTE = (
    "  ordered by points (each match counts once: 1 for every bot finished ahead of, 1/2 "
    "for a tie; equal points by elo); elo counts games, so the two orders can differ"
)
