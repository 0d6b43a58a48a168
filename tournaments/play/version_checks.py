"""Checking a new bot version before it may play rated games.

The check plays one short match in the sandbox against house bots at every table size of
the bot's game (and one for each other variant), then probes the protocol directly: the
bot must answer ``hello`` and exit by itself after ``match_over``. Any fault of the bot
rejects it, and the report says why in the owner's words, counting games, steps and seats
from 1 as the replay does: "timeout (with 2 players, seat 2, game 1, step 4)", "illegal
action ... : 'Xx' is not one of the legal actions", "crashed (with 3 players, seat 1, at
start-up): ... exited with status 1" followed by the traceback from its log (once: each
match's line gives only the fault). It names the opponents and the clocks the bot played
under. Only the owner sees the report (it holds the bot's log).

The check waits in the database until the scheduler (tournaments.play.dispatch) gives its
owner a free process, then runs as a Celery task on the interactive queue; it claims the
version with a conditional UPDATE, so a second delivery of the same task changes nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from judge import protocol, situations
from judge.engine import GameError
from judge.games import game_class
from judge.protocol import FaultKind
from judge.rng import derive_seed
from judge.sandbox_bridge import bot_environment
from sandbox.backend import Backend
from sandbox.channel import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from sandbox.limits import Limits
from sandbox.runtimes import BadBotCode
from tournaments.competitions.time_control import standard_time_control
from tournaments.models import BotVersion
from tournaments.play import check_coverage, dispatch, runner
from tournaments.play.instance import judge_instance

log = logging.getLogger(__name__)

#: The check's clocks: the standard ones of rated play, so that a bot cannot tell a check
#: from a rated match by its ``hello`` (nor behave well only when checked).
CHECK_TIME_CONTROL = standard_time_control()
#: The house bot that fills the other seats of the first round...
CHECK_OPPONENT = "random"
#: ... and of the further matches: it plays every kind of action as often (judge.bots).
FURTHER_OPPONENT = "spread"
#: How long a bot may take to exit after ``match_over``.
EXIT_GRACE_S = 3.0
#: Seconds before a check that could not run (no sandbox) is tried again.
RETRY_AFTER_S = 30
#: A check sent this many seconds ago and still not over was lost (its worker died, or
#: the broker lost it): it waits for a process again.
RESEND_AFTER_S = 1800
#: How much of the bot's log the report keeps.
LOG_CHARS = 16 << 10
#: How much of an offending message a fault's line quotes.
OFFENDING_CHARS = 300
#: The report of a check stopped because its version (or its bot) was retired meanwhile.
STOPPED_RETIRED = "not checked: the version was retired while its check ran"


def enqueue_check(version_id: int) -> None:
    """Have ``version_id`` checked: once the current transaction commits, the scheduler
    sends its check when its owner's turn comes (it waits pending, unsent, until then).

    ``robust``: when tasks run in-process and the sandbox is missing, the upload still
    succeeds (the version stays pending) instead of failing after it was stored.
    """
    transaction.on_commit(dispatch.dispatch, robust=True)


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=5,
    name="tournaments.checks.check_version",
)
def check_version(self: Any, version_id: int) -> str:
    """Check a pending version and store its verdict; returns the verdict (or "skipped")."""
    claimed = BotVersion.objects.filter(
        pk=version_id, status__in=(BotVersion.Status.PENDING, BotVersion.Status.CHECKING)
    ).update(status=BotVersion.Status.CHECKING)
    if claimed != 1:
        return "skipped"
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    stop = runner.StopSignal()
    watch = RetireWatch(version_id, stop)
    watch.start()
    try:
        report = run_check(version.bot.game, bytes(version.code), version_id, backend_maker(), stop)
    except runner.MatchStopped:
        withdrawn(version_id)
        return "withdrawn"
    except runner.InfrastructureError as error:
        log.warning("version %s: the check could not run: %s", version_id, error)
        if error.lasting or self.request.retries >= self.max_retries:
            # Nothing waits forever: the author reads why, and what mends it.
            not_checked(version_id, str(error))
            return "not checked"
        # Not the bot's fault and maybe passing: leave it pending and try again later.
        BotVersion.objects.filter(pk=version_id).update(status=BotVersion.Status.PENDING)
        raise self.retry(exc=error, countdown=RETRY_AFTER_S) from None
    finally:
        watch.stop()
    status = BotVersion.Status.ACCEPTED if report["passed"] else BotVersion.Status.REJECTED
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.CHECKING).update(
        status=status, check_report=report
    )
    # Its process is free (and an accepted version joins its game's ladder).
    dispatch.dispatch()
    return str(status)


class RetireWatch(threading.Thread):
    """Looks every MATCH_WATCH_SECONDS whether the version being checked, or its bot, was
    retired; then sets the check's StopSignal: its match stops at once and its bots are
    closed, so a retired flood of slow bots frees its processes within moments."""

    def __init__(self, version_id: int, signal: runner.StopSignal) -> None:
        super().__init__(name=f"retire-watch-{version_id}", daemon=True)
        self.version_id = version_id
        self.signal = signal
        self.stopped = threading.Event()

    def run(self) -> None:
        retired = Q(retired=True) | Q(bot__retired=True)
        try:
            while not self.stopped.wait(settings.MATCH_WATCH_SECONDS):
                try:
                    gone = BotVersion.objects.filter(retired, pk=self.version_id).exists()
                except DatabaseError:
                    continue
                if gone:
                    self.signal.set("retired")
                    return
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=5)


def withdrawn(version_id: int) -> None:
    """End a check stopped because its version was retired: rejected, saying so."""
    report = rejected_unplayed(STOPPED_RETIRED, 0.0) | {"verdict": "withdrawn"}
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.CHECKING).update(
        status=BotVersion.Status.REJECTED, check_report=report
    )
    dispatch.dispatch()  # its process is free


def not_checked(version_id: int, cause: str) -> None:
    """End a check this server cannot run (a host fault: no runtime image, no engine):
    the version is rejected with a report naming the cause and the fix; ``host`` in the
    report lets the same code be uploaded again once the operator has mended it."""
    reason = (
        f"not checked: this server cannot run it now ({cause}). This is not your bot's "
        "fault: once the operator has fixed it, upload the same code again"
    )
    report = rejected_unplayed(reason, 0.0) | {"verdict": "not checked", "host": True}
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.CHECKING).update(
        status=BotVersion.Status.REJECTED, check_report=report
    )
    dispatch.dispatch()


@shared_task(acks_late=True, name="tournaments.checks.resend_lost_checks")
def resend_lost_checks() -> int:
    """Periodic (beat): checks sent RESEND_AFTER_S ago and not over (a lost message, a
    dead worker) wait for a process again; checking twice changes nothing. Returns how
    many."""
    stale = timezone.now() - dt.timedelta(seconds=RESEND_AFTER_S)
    lost = BotVersion.objects.filter(dispatch.CHECK_IN_FLIGHT, check_sent_at__lt=stale)
    count = lost.update(status=BotVersion.Status.PENDING, check_sent_at=None)
    dispatch.dispatch()
    return count


def backend_maker() -> Callable[[], Backend]:
    """The worker's sandbox backend (the service makes one per process)."""
    from tournaments.play.tasks import sandbox_backend

    return sandbox_backend


def table_sizes(game: str) -> range:
    engine = game_class(game)
    return range(engine.min_players, engine.max_players + 1)


def run_check(
    game: str,
    code: bytes,
    version_id: int,
    backend: Callable[[], Backend],
    stop: runner.StopSignal | None = None,
) -> dict[str, Any]:
    """The check's report: one match per table size (and per other variant, at the smallest
    table), then further matches until the bot has met every kind of situation its game
    declares (check_coverage), the probes, the verdict and the log. Raises
    runner.MatchStopped once ``stop`` is set (the version was retired meanwhile)."""
    began = time.perf_counter()
    unreadable = unreadable_code(code) or build_problem(code, backend)
    if unreadable:
        return rejected_unplayed(unreadable, time.perf_counter() - began)
    played = CheckPlay(game, code, version_id, backend, stop)
    first_round = time.perf_counter()
    for table in check_tables(game):
        played.match(table)
    budget = check_coverage.extra_budget(
        time.perf_counter() - first_round, settings.CHECK_FURTHER_SHARE
    )
    played.until_covered(time.perf_counter() + budget)
    probes = [probe_exit(game, code, backend)]
    problems = [m["problem"] for m in played.matches if m["problem"]]
    problems += [p["problem"] for p in probes if p["problem"]]
    return {
        "passed": not problems,
        "verdict": "accepted" if not problems else "rejected",
        "reason": problems[0] if problems else passed_reason(played.coverage),
        "problems": problems,
        "matches": played.matches,
        "probes": probes,
        "time_control": dict(CHECK_TIME_CONTROL),
        "situations": played.coverage.report(),
        "situation_times": check_coverage.SITUATION_TIMES,
        "extra_budget_s": round(budget, 3),
        "log": "\n".join(played.logs)[-LOG_CHARS:],
        "seconds": round(time.perf_counter() - began, 3),
    }


class CheckPlay:
    """The check's matches as they are played: their summaries, the bot's logs, and the
    situations its bot met (the seed is drawn afresh per check, not derived from public
    ids: the deals cannot be known in advance)."""

    def __init__(
        self,
        game: str,
        code: bytes,
        version_id: int,
        backend: Callable[[], Backend],
        stop: runner.StopSignal | None,
    ) -> None:
        self.game, self.code, self.version_id = game, code, version_id
        self.backend, self.stop = backend, stop
        self.seed = secrets.randbits(62)
        self.coverage = check_coverage.Coverage(game, check_tables(game))
        self.matches: list[dict[str, Any]] = []
        self.logs: list[str] = []

    def match(self, table: check_coverage.Table, games: int = 1, further: bool = False) -> None:
        """Play one check match of ``games`` games at ``table`` and keep what it showed
        (``further``: a match after the first round, played to meet more situations)."""
        if self.stop is not None and self.stop():
            raise runner.MatchStopped(self.stop.reason)
        players, variant = table
        seed = derive_seed(self.seed, "further", len(self.matches)) if further else self.seed
        summary, bot_log = check_match(
            self.game, players, self.code, self.version_id, self.backend, variant, seed,
            self.stop, games=games, opponent=FURTHER_OPPONENT if further else CHECK_OPPONENT,
        )  # fmt: skip
        self.matches.append(summary | {"further": further})
        self.coverage.add(table, summary)
        said = f"{variant or 'standard'} match with {players} players"
        said += f", {games} games" if games > 1 else ""
        self.logs.append(f"--- {said} ---\n{bot_log}")

    def until_covered(self, deadline: float) -> None:
        """Further matches, each at the table most likely to bring the situations still
        short and of as many games as fit before ``deadline``, until every kind was met
        SITUATION_TIMES times, a fault is found (the verdict is known) or time is up."""
        while self.coverage.short() and not any(m["problem"] for m in self.matches):
            table = self.coverage.next_table()
            games = self.coverage.games_within(table, deadline - time.perf_counter())
            if games < 1:
                return
            self.match(table, games, further=True)


def passed_reason(coverage: check_coverage.Coverage) -> str:
    """A passed check's reason, naming the situations it could not meet often enough."""
    short = coverage.short()
    if not short:
        return "every check passed"
    said = "; ".join(coverage.declared[kind] for kind in short)
    return (
        f"every check passed (met fewer than {check_coverage.SITUATION_TIMES} times in the "
        f"check's time: {said})"
    )


def unreadable_code(code: bytes) -> str:
    """Why the stored code cannot be unpacked ("" when it can): the same unpacking as a
    match's, so a version the check accepts never fails a match for its zip."""
    with tempfile.TemporaryDirectory(prefix="check-unpack-") as workdir:
        try:
            runner.unpack(code, Path(workdir) / "bot")
        except runner.UnreadableCode as error:
            return str(error)
    return ""


def build_problem(code: bytes, backend: Callable[[], Backend]) -> str:
    """Why the bot cannot be built ("" when it can): the check compiles it first (the
    build is kept for its matches), so a compiler's refusal, with the file and line of
    each error, is the whole report."""
    with tempfile.TemporaryDirectory(prefix="check-build-") as workdir:
        folder = runner.unpack(code, Path(workdir) / "bot")
        try:
            backend().build(folder, label=f"{judge_instance()}-check-build")
        except BadBotCode as error:
            return str(error)[:LOG_CHARS]
        except Exception as error:
            raise runner.InfrastructureError(
                f"could not build the bot: {error}", runner.lasting_cause(error)
            ) from error
    return ""


def rejected_unplayed(problem: str, seconds: float) -> dict[str, Any]:
    """The report of a version rejected before any check match could start."""
    return {
        "passed": False,
        "verdict": "rejected",
        "reason": problem,
        "problems": [problem],
        "matches": [],
        "probes": [],
        "log": "",
        "seconds": round(seconds, 3),
    }


def check_tables(game: str) -> list[tuple[int, str]]:
    """(players, variant) of each check match: every table size, then every other variant."""
    engine = game_class(game)
    tables = [(players, "") for players in table_sizes(game)]
    return tables + [(engine.min_players, variant) for variant in engine.variants[1:]]


def check_match(
    game: str,
    players: int,
    code: bytes,
    version_id: int,
    backend: Callable[[], Backend],
    variant: str = "",
    seed: int | None = None,
    stop: runner.StopSignal | None = None,
    *,
    games: int = 1,
    opponent: str = CHECK_OPPONENT,
) -> tuple[dict[str, Any], str]:
    """Play the bot in a random seat against house bots for ``games`` games (one bot
    process plays them all); its summary and the bot's log. The summary counts the
    situation kinds the bot met (judge.situations) and names the one of each fault.

    The seed is secret (drawn per check) and the seat random, so a bot cannot recognise a
    check by its cards or by always sitting first."""
    seat = secrets.randbelow(players)
    house = runner.SeatPlan(name=f"house:{opponent}", content_hash="", house_policy=opponent)
    seats = [house] * players
    seats[seat] = runner.SeatPlan(name="candidate", content_hash="", code=code)
    plan = runner.MatchPlan(
        match_id=version_id,
        game=game,
        variant=variant,
        options=dict(game_class(game).check_options),  # keeps each check match short
        seed=derive_seed(secrets.randbits(62) if seed is None else seed, players, variant),
        games=games,
        duplicate=False,
        time_control=dict(CHECK_TIME_CONTROL),
        limits={},
        seats=seats,
        instance=f"{judge_instance()}-check",
    )
    try:
        # The house opponents are the judge's own code: called in-process, the check is quick.
        outcome, timings = runner.play(plan, backend, house_in_sandbox=False, stop=stop)
    except GameError as error:  # the check's own request is wrong: a bug here, not the bot's
        raise runner.InfrastructureError(f"the check match could not be set up: {error}") from None
    bot_log = outcome["logs"][seat] if outcome.get("logs") else ""
    record = outcome.get("record")
    faults = [f for f in outcome["faults"] if f["bot"] == seat]
    declared = game_class(game).situations
    for fault in faults:
        kinds = fault_situation(record, fault)
        fault["situation"] = list(kinds)
        fault["situation_words"] = situations.words(kinds, declared)
    where = Where(players, seat, variant)
    problem = describe_fault(faults[0], where, bot_log) if faults else ""
    summary = {
        "players": players,
        "seat": seat,
        "seat_number": seat + 1,
        "variant": variant or "standard",
        "games": games,
        "opponents": [
            {"seat_number": index + 1, "name": plan_seat.name}
            for index, plan_seat in enumerate(seats)
            if index != seat
        ],
        "scores": outcome["scores"],
        "places": outcome["places"],
        "faults": faults,
        "fault_lines": [describe_fault(fault, where, "") for fault in faults],
        "problem": problem,
        "situations": dict(situations.met(record, seat)) if record else {},
        "timing": {
            "start_s": round(timings.sandbox_start, 3),
            "play_s": round(timings.referee - timings.sandbox_stop, 3),
        },
        # The game's record, for its replay on the version's page (owner only) and for
        # ``python -m judge replay``: a check game is short (its check_options).
        "record": outcome.get("record"),
    }
    return summary, bot_log


def fault_situation(record: dict[str, Any] | None, fault: dict[str, Any]) -> tuple[str, ...]:
    """The situation kinds of the decision a fault happened in (none outside a move)."""
    if not record or fault.get("game") is None or fault.get("move") is None:
        return ()
    return situations.at_step(record, fault["game"], fault["move"])


@dataclass(frozen=True)
class Where:
    """Which check match a fault happened in: its table size, the bot's seat (from 0, as
    stored), and its variant ("" for the standard one)."""

    players: int
    seat: int
    variant: str = ""

    def text(self, fault: dict[str, Any]) -> str:
        """ "with 3 players, seat 2, variant mini, game 1, step 4": seats, games and steps
        counted from 1, in the words of a match page's replay."""
        said = f"with {self.players} players, seat {self.seat + 1}"
        said += f", variant {self.variant}" if self.variant else ""
        if fault.get("move") is not None:
            return said + f", game {fault['game'] + 1}, step {fault['move'] + 1}"
        if fault.get("game") is not None:
            return said + f", game {fault['game'] + 1}, after its last step"
        return said + ", at start-up"


def describe_fault(fault: dict[str, Any], where: Where, bot_log: str) -> str:
    """A fault as its owner wants to read it: what, where, why, the message the bot sent
    (when it sent one), and for a crash the traceback from ``bot_log`` (pass "" for the
    one-line form that each match's line uses, so the traceback is shown once)."""
    kind = fault["kind"]
    said = {
        FaultKind.TIMEOUT: "timeout",
        FaultKind.ILLEGAL_ACTION: "illegal action",
        FaultKind.CLOSED: "crashed",
    }.get(kind, str(kind).replace("_", " "))
    text = f"{said} ({where.text(fault)})"
    if fault.get("situation_words"):
        text += f", {fault['situation_words']}"
    text += f": {fault['reason']}"
    if fault.get("text"):
        text += f"; the bot sent: {fault['text'][:OFFENDING_CHARS]}"
    traceback = last_traceback(bot_log) if kind == FaultKind.CLOSED and bot_log else ""
    return text + ("\n" + traceback if traceback else "")


def last_traceback(bot_log: str) -> str:
    """The last Python traceback in a log (or its last lines when there is none)."""
    start = bot_log.rfind("Traceback (most recent call last):")
    if start >= 0:
        return bot_log[start:].strip()[-4000:]
    return "\n".join(bot_log.strip().splitlines()[-10:])


def probe_exit(game: str, code: bytes, backend: Callable[[], Backend]) -> dict[str, Any]:
    """Greet the bot, end the match at once, and see that it exits by itself."""
    engine = game_class(game)
    hello = protocol.hello(
        bot=0,
        seat=0,
        game=game,
        variant=engine.variants[0],
        options=dict(engine.option_defaults),
        players=engine.min_players,
        games=1,
        time=CHECK_TIME_CONTROL,
    )
    over = protocol.match_over(bot=0, scores=[0] * engine.min_players, places=[1, 1])
    name = "exits after match_over"
    with tempfile.TemporaryDirectory(prefix="check-probe-") as workdir:
        try:
            sandbox = backend()
            channel = sandbox.start(
                runner.unpack(code, Path(workdir) / "bot"),
                label=f"{judge_instance()}-check-probe",
                limits=Limits(),
                env=bot_environment(sandbox),
            )
        except Exception as error:
            raise runner.InfrastructureError(
                f"could not start the probe: {error}", runner.lasting_cause(error)
            ) from error
        try:
            return exchange_exit(channel, hello, over, name)
        finally:
            channel.close()


def exchange_exit(
    channel: Channel, hello: dict[str, Any], over: dict[str, Any], name: str
) -> dict[str, Any]:
    deadline = time.monotonic() + CHECK_TIME_CONTROL["startup_s"]
    try:
        channel.send(protocol.encode(hello))
        protocol.parse_ready(channel.recv(deadline))
    except (ChannelClosed, ChannelTimeout, LineTooLong, ValueError) as error:
        return {"name": name, "problem": f"probe: no ready answer to hello: {error}"}
    try:
        channel.send(protocol.encode(over))
        line = channel.recv(time.monotonic() + EXIT_GRACE_S)
    except ChannelClosed as closed:
        return {"name": name, "problem": "", "detail": str(closed)}
    except ChannelTimeout:
        return {
            "name": name,
            "problem": f"probe: still running {EXIT_GRACE_S:g} s after match_over; "
            "a bot must exit when the match is over",
        }
    except LineTooLong as error:
        line = error.head
    return {
        "name": name,
        "problem": f"probe: wrote {line[:200]!r} after match_over instead of exiting",
    }
