"""Celery tasks. They take ids, and running one twice changes nothing the first did not.

``play_match`` claims the match (a conditional UPDATE), keeps its lease alive on a thread
while the referee plays, and stores the outcome only if it still holds the attempt. A bot's
fault is part of the result; only infrastructure trouble (the sandbox cannot start a bot,
the database is unreachable) gives the match back to be tried again, and a host fault no
retry mends (a missing runtime image, no sandbox engine) fails it at once, saying the fix.
A bot's wall clock run out while this worker was stalled (runner.HostStalled), like the
other host faults of runner.host_fault, voids the match: never rated, played again later.

Each task is named explicitly with the name it had when this module was tournaments.tasks:
a deployed broker's queued messages and the beat schedule (settings) name tasks that way.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from importlib import import_module
from pathlib import Path
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import (
    task_postrun,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
    worker_shutting_down,
)
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection

from judge.duel.pairs import seed_slots
from judge.engine import GameError
from judge.games import GAMES
from judge.referee import Carried, rotations, split_blocks
from sandbox.backend import Backend
from tournaments.models import Match, MatchPart
from tournaments.play import clocks, dispatch, lease, live_feed, ops_counters, runner
from tournaments.play.human_seat import PERSON_POLICY
from tournaments.play.instance import judge_instance
from tournaments.rating.stored import field_view

log = logging.getLogger(__name__)


class LeaseKeeper(threading.Thread):
    """Renews the lease of one attempt every third of the lease, and every
    MATCH_WATCH_SECONDS looks whether the attempt still holds the match, until stopped.

    When it does not (the match was cancelled, or another attempt has it), ``lost`` is
    set and so is the match's StopSignal: the referee stops and the bots are closed.
    """

    def __init__(self, match_id: int, attempt: int, signal: runner.StopSignal) -> None:
        super().__init__(name=f"lease-{match_id}", daemon=True)
        self.match_id = match_id
        self.attempt = attempt
        self.signal = signal
        self.stopped = threading.Event()
        self.lost = threading.Event()

    def run(self) -> None:
        renew_every = settings.MATCH_LEASE_SECONDS / 3
        tick = min(settings.MATCH_WATCH_SECONDS, renew_every)
        renewal = time.monotonic() + renew_every
        try:
            while not self.stopped.wait(tick):
                try:
                    # Due within half a tick: renew now rather than a whole tick late.
                    if time.monotonic() >= renewal - tick / 2:
                        renewal = time.monotonic() + renew_every
                        held = lease.renew_lease(self.match_id, self.attempt)
                    else:
                        held = lease.holds_match(self.match_id, self.attempt)
                except DatabaseError:
                    log.warning("match %s: could not renew the lease", self.match_id)
                    continue
                if not held:
                    self.lost.set()
                    self.signal.set()
                    return
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=5)


def worker_name(celery_hostname: str | None) -> str:
    """Who holds a match: the Celery worker's name (or this host) and the process id."""
    return f"{celery_hostname or socket.gethostname()}:{os.getpid()}"


def worker_host() -> str:
    """The host this worker's bots share a kernel with: WORKER_HOST, else the kernel's boot
    id (every container of one machine reads the same: one kernel, one set of caches),
    else the host name. A duplicate match's parts go to different hosts (dispatch)."""
    if settings.WORKER_HOST:
        return str(settings.WORKER_HOST)
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return socket.gethostname()
    return f"kernel-{boot[:13]}"


def split_rotations(match: Match, attempt: int, players: int) -> None:
    """Decide, as the first part is claimed, in how many parts the match's rotations are
    played (dispatch.rotation_parts: one per live host); a person's table is never split."""
    if match.part != 0 or match.table_slot is not None:
        return
    parts = dispatch.rotation_parts(players, match.duplicate)
    if parts != max(match.parts, 1):
        Match.objects.filter(pk=match.pk, attempt=attempt).update(parts=parts)
    match.parts = parts


def carried_in(match: Match) -> tuple[range | None, Carried | None]:
    """The blocks of the match's current part and what its earlier parts carried (None,
    None: played whole)."""
    if match.parts <= 1:
        return None, None
    count = len(rotations(match.seats.count())) if match.duplicate else 1
    part = split_blocks(count, match.parts)[match.part]
    if match.part == 0:
        return part, None
    rows = list(MatchPart.objects.filter(match=match, index__lt=match.part).order_by("index"))
    carried = Carried(
        games=[played for row in rows for played in row.records],
        faults=[fault for row in rows for fault in row.faults],
        bots=rows[-1].carry,
    )
    return part, carried


def load_plan(match_id: int, attempt: int | None = None) -> runner.MatchPlan:
    """What the worker plays of match ``match_id``: all of it, or (``attempt`` given, the
    match played in parts) its current part, carrying its earlier parts in."""
    match = Match.objects.get(pk=match_id)
    versions = match.seat_versions()
    if attempt is not None:
        split_rotations(match, attempt, len(versions))
    part, carried = carried_in(match)
    # A duel's round seeds each house bot by the seat it held in the pair's first game.
    slots = seed_slots(len(versions), match.duel_seating) if match.duel_id else None
    seats = [
        runner.SeatPlan(
            name=f"{version.bot.name} v{version.number}",
            content_hash=version.content_hash,
            code=bytes(version.code),
            house_policy="" if person else version.bot.house_policy,
            person=person,
            seed_slot=None if slots is None else slots[index],
        )
        for index, version in enumerate(versions)
        for person in [version.bot.house_policy == PERSON_POLICY]
    ]
    return runner.MatchPlan(
        match_id=match.pk,
        game=match.game,
        variant=match.variant,
        options=dict(match.options),
        seed=match.seed,
        games=match.games,
        duplicate=match.duplicate,
        time_control=dict(match.time_control),
        limits=dict(match.limits),
        seats=seats,
        instance=judge_instance(),
        part=part,
        carried=carried,
        part_index=match.part,
    )


_backends: dict[tuple[int, str], Backend] = {}


def sandbox_backend() -> Backend:
    """This process's sandbox backend (made once: the Docker one checks its image)."""
    key = (os.getpid(), settings.JUDGE_SANDBOX)
    if key not in _backends:
        _backends[key] = runner.make_backend(settings.JUDGE_SANDBOX)
    return _backends[key]


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=10,
    name="tournaments.tasks.play_match",
)
def play_match(self: Any, match_id: int) -> str:
    """Play and store match ``match_id`` unless another attempt has it; returns what happened."""
    began = time.perf_counter()
    try:
        attempt = lease.claim_match(match_id, worker_name(self.request.hostname))
    except (OperationalError, InterfaceError) as error:
        raise self.retry(exc=error, countdown=5) from None
    if attempt is None:
        return "not claimed"
    signal = runner.StopSignal()
    keeper = LeaseKeeper(match_id, attempt, signal)
    keeper.start()
    budget: threading.Timer | None = None
    try:
        plan = load_plan(match_id, attempt)
        database = time.perf_counter() - began
        seconds = clocks.plan_budget(plan)
        budget = threading.Timer(seconds, signal.set, kwargs={"reason": f"budget:{seconds}"})
        budget.daemon = True
        budget.start()
        outcome, timings = runner.play(
            plan,
            sandbox_backend,
            house_in_sandbox=settings.JUDGE_HOUSE_BOTS == "sandbox",
            stop=signal,
            lifecycle=runner.lifecycle_named(settings.JUDGE_SANDBOX_LIFECYCLE),
            make_game=live_feed.feed_maker(
                match_id, plan.game, frozenset(i for i, s in enumerate(plan.seats) if s.person)
            ),
        )
    except runner.MatchStopped:
        keeper.stop()
        return stopped(match_id, attempt, signal.reason)
    except runner.HostStalled as error:
        keeper.stop()
        lease.release_match(
            match_id, attempt, stall_void(str(error)), settings.MATCH_VOID_RETRY_SECONDS
        )
        return "voided"
    except runner.InfrastructureError as error:
        keeper.stop()
        if error.lasting:  # no retry mends it: ended now, the message names the fix
            lease.fail_match(match_id, attempt, f"this server cannot play it: {error}")
            return "failed"
        lease.release_match(match_id, attempt, str(error))
        return "released"
    except (GameError, ValueError) as error:
        keeper.stop()
        lease.fail_match(match_id, attempt, f"cannot be played: {error}")
        return "failed"
    except SoftTimeLimitExceeded:
        keeper.stop()
        lease.fail_match(match_id, attempt, "ran past the match time limit")
        return "failed"
    except (OperationalError, InterfaceError) as error:
        keeper.stop()
        # The lease runs out by the retry, so the retry (or the reaper) can claim it again.
        raise self.retry(exc=error, countdown=settings.MATCH_LEASE_SECONDS + 1) from None
    finally:
        if budget is not None:
            budget.cancel()
    keeper.stop()
    voided = runner.host_fault(plan, outcome)
    if voided:  # the host's fault, not the bots': never rated, played again later
        lease.release_match(match_id, attempt, voided, settings.MATCH_VOID_RETRY_SECONDS)
        return "voided"
    stored = time.perf_counter()
    figures = {"sandbox_start": timings.sandbox_start, "referee": timings.referee}
    part = part_played(plan, outcome, figures, worker_name(self.request.hostname))
    try:
        if part is not None and part.blocks.stop < block_count(plan):
            done = lease.finish_part(match_id, attempt, part)
            return "part stored" if done else "lost the lease"
        if part is not None:
            figures = parts_timings(match_id, figures)
        done = lease.finish_match(match_id, attempt, outcome, figures, part)
        if done:  # the time spent storing is only known now; one small write records it
            figures["database"] = database + time.perf_counter() - stored
            Match.objects.filter(pk=match_id, attempt=attempt).update(timings=figures)
            lease.refresh_table_of(match_id)
    except (OperationalError, InterfaceError) as error:
        raise self.retry(exc=error, countdown=settings.MATCH_LEASE_SECONDS + 1) from None
    return "stored" if done else "lost the lease"


def block_count(plan: runner.MatchPlan) -> int:
    return len(rotations(len(plan.seats))) if plan.duplicate else 1


def part_played(
    plan: runner.MatchPlan, outcome: dict[str, Any], figures: dict[str, float], worker: str
) -> lease.PartPlayed | None:
    """What this attempt played, when it played a part of a match (None: all of it)."""
    if plan.part is None:
        return None
    games = len(plan.carried.games) if plan.carried else 0
    faults = len(plan.carried.faults) if plan.carried else 0
    return lease.PartPlayed(
        index=plan.part_index,
        blocks=plan.part,
        host=worker_host(),
        worker=worker,
        records=outcome["record"]["games"][games:],
        faults=outcome["faults"][faults:],
        carry=outcome["carry"],
        timings=dict(figures),
    )


def parts_timings(match_id: int, figures: dict[str, float]) -> dict[str, float]:
    """A match played in parts: its sandbox and referee seconds summed over its parts."""
    total = dict(figures)
    for earlier in MatchPart.objects.filter(match_id=match_id).values_list("timings", flat=True):
        for key in ("sandbox_start", "referee"):
            total[key] = total.get(key, 0.0) + float(earlier.get(key, 0.0))
    return total


def stall_void(reason: str) -> str:
    """The failure line of a match voided because this worker stalled (the page shows
    lines that begin "voided")."""
    return f"voided: {reason}; not rated, it is played again"


def stopped(match_id: int, attempt: int, reason: str) -> str:
    """Record a match the StopSignal ended: past its budget it fails for good (a bot too
    slow for its clocks); cancelled, it stays cancelled (resume plays it again)."""
    if reason.startswith("budget:"):
        spent = reason.split(":", 1)[1]
        lease.fail_match(match_id, attempt, f"ran past its wall-clock budget of {spent} s")
        return "failed"
    lease.stop_match(match_id, attempt, "stopped: the match was cancelled")
    return "stopped"


@task_postrun.connect
def count_after_task(
    task: Any = None, args: Any = None, retval: Any = None, state: str = "", **_: Any
) -> None:
    """The operators' counters (tournaments.play.ops_counters): how a match attempt ended
    and its bots' faults once stored, and the bot containers this process started since
    its last task (a check's too). A retry (state RETRY) is not an ending."""
    if getattr(task, "name", "") != dispatch.PLAY_MATCH or state != "SUCCESS":
        ops_counters.containers_started()
        return
    faults: list[Any] = []
    if retval == "stored":
        match_id = (args or [None])[0]
        faults = list(Match.objects.filter(pk=match_id).values_list("faults", flat=True))
        faults = [fault for found in faults for fault in found or []]
    ops_counters.attempt_ended(str(retval), faults)


@shared_task(acks_late=True, name="tournaments.tasks.reap_matches")
def reap_matches() -> dict[str, int]:
    """Periodic (beat): requeue matches whose worker vanished (lease.reap_matches),
    then fill the free tournament slots (a lost message or a dead worker freed one)."""
    counts = lease.reap_matches()
    counts["dispatched"] = len(dispatch.dispatch())
    return counts


@shared_task(acks_late=True, name="tournaments.tasks.ladder_tick")
def ladder_tick() -> int:
    """Periodic (beat, when LADDER_ENABLED): fill the free slots, the ladder's share
    included (a new version accepted, ratings settled or unsettled, a ladder resumed).
    Returns how many matches were sent."""
    return len(dispatch.dispatch())


@shared_task(acks_late=True, name="tournaments.tasks.refit_fields")
def refit_fields() -> dict[str, str]:
    """Periodic (beat, every FIELD_PASS_SECONDS, on the batch queue): each game's stored
    field view refitted where rated matches came since its last pass
    (rating.stored.field_view.refresh); a game that fails is logged and the others still run."""
    done = {}
    for game in GAMES:
        try:
            done[game] = field_view.refresh(game)
        except Exception:  # the next beat tries again; the view shown stays the last one
            log.exception("field pass of %s failed", game)
            done[game] = "failed"
    return done


@worker_process_shutdown.connect
def close_container_pool(**_: Any) -> None:
    """A worker process stopping removes the containers its pool kept (sandbox.pool)."""
    backend = _backends.get((os.getpid(), "docker"))
    pool = getattr(backend, "pool", None)
    if pool is not None:
        try:
            pool.close()
        except Exception:  # the next worker's start removes what is left (remove_leftovers)
            log.exception("could not remove the pooled bot containers")


@worker_ready.connect
def remove_leftover_containers(**_: Any) -> None:
    """Containers of matches that a dead worker on this host left behind are removed."""
    if settings.JUDGE_SANDBOX != "docker":
        return
    try:
        docker_backend = import_module("sandbox.docker_backend")
        removed = docker_backend.remove_leftovers()
    except Exception:  # a worker without Docker still starts; its matches will be retried
        log.exception("could not look for leftover bot containers")
        return
    log.info("removed %s leftover bot containers", removed)


class Heartbeat(threading.Thread):
    """Announces this worker and its number of processes every WORKER_HEARTBEAT_SECONDS
    (tournaments.play.dispatch.announce), from the worker's main process; when that is news (it
    just started, or was resized) the free processes are filled at once."""

    def __init__(self, name: str, processes: Any, host: str = "") -> None:
        super().__init__(name="heartbeat", daemon=True)
        self.worker = name
        self.processes = processes
        #: The host whose queue of match parts this worker takes ("": none).
        self.host = host
        self.stopped = threading.Event()
        #: The languages it can run, when newly looked at (announced at the next beat).
        self.languages: list[str] | None = None
        self.looking: threading.Thread | None = None

    def look_at_languages(self) -> None:
        """Which languages this worker can run, looked at on a thread of its own (an
        engine that does not answer must not hold up the beats): at the first beat and
        about once a minute, since an operator may build a missing image meanwhile."""
        if self.looking is not None and self.looking.is_alive():
            return

        def look() -> None:
            self.languages = runner.runnable_languages(settings.JUDGE_SANDBOX)

        self.looking = threading.Thread(target=look, name="languages", daemon=True)
        self.looking.start()

    def run(self) -> None:
        beats = 0
        every = max(1, round(LANGUAGES_EVERY_S / settings.WORKER_HEARTBEAT_SECONDS))
        try:
            while True:
                if beats % every == 0:
                    self.look_at_languages()
                if beats == 0 and self.looking is not None:
                    self.looking.join(timeout=2)  # announced with its first beat, if it can
                beats += 1
                languages, self.languages = self.languages, None
                try:
                    processes = int(self.processes())
                    if dispatch.announce(self.worker, processes, languages, self.host):
                        dispatch.dispatch()
                except DatabaseError as error:
                    log.warning("worker %s: could not announce itself: %r", self.worker, error)
                    # A restarted database leaves this thread's connection dead, and no
                    # request or task cycle here would replace it: every later beat failed
                    # and the worker's processes dropped out of the capacity for good.
                    with contextlib.suppress(DatabaseError):
                        connection.close()
                if self.stopped.wait(settings.WORKER_HEARTBEAT_SECONDS):
                    return
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=5)
        try:
            dispatch.withdraw(self.worker)
        except DatabaseError:  # it drops out of the capacity after three missed beats
            log.warning("worker %s: could not withdraw its announcement", self.worker)
        finally:
            connection.close()


def take_parts(consumer: Any) -> str:
    """A worker that takes tournament matches also takes its host's queue of match parts
    (dispatch.host_queue): the host it announces, or "" when it takes none."""
    if dispatch.TOURNAMENTS not in consumer.app.amqp.queues.consume_from:
        return ""
    host = worker_host()
    try:
        consumer.add_task_queue(dispatch.host_queue(host))
    except Exception:  # it still plays whole matches; no part is sent to its host
        log.exception("worker %s: could not take the queue of host %s", consumer.hostname, host)
        return ""
    return host


_heartbeat: list[Heartbeat] = []
#: How often a worker looks again which languages it can run (seconds).
LANGUAGES_EVERY_S = 60.0


@worker_ready.connect
def start_heartbeat(sender: Any = None, **_: Any) -> None:
    """The worker is consuming: announce its processes from now on. The tables' worker
    announces none: its threads wait on people and never count in the capacity that plays
    bots (tournaments.play.dispatch)."""
    if settings.TABLES_QUEUE in sender.app.amqp.queues.consume_from:
        log.info("worker %s serves people's tables: it announces no capacity", sender.hostname)
        return
    pool = sender.pool

    def processes() -> int:
        return int(getattr(pool, "num_processes", None) or sender.controller.concurrency)

    beat = Heartbeat(sender.hostname, processes, take_parts(sender))
    _heartbeat.append(beat)
    beat.start()


@worker_shutting_down.connect
@worker_shutdown.connect
def stop_heartbeat(**_: Any) -> None:
    """A stopping worker takes no new work: its processes leave the capacity now (the
    matches it still plays stay in flight until they end)."""
    while _heartbeat:
        _heartbeat.pop().stop()
