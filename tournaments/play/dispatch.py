"""The scheduler: which work goes to the workers next, and how much of it at once.

Every kind of work waits in the database and is sent to Celery only when a worker process
is free for it, so the broker never holds a backlog that could jump a queue:

- **Capacity follows the workers.** Each worker announces itself every
  WORKER_HEARTBEAT_SECONDS with its number of processes (``announce``, from
  tournaments.play.tasks); the capacity is the sum over the workers heard from in the last three
  beats (``capacity``). A new worker raises it at its first beat, and a worker that stops
  beating drops out of it (a killed worker's matches come back through their leases).
- **Interactive first, persons in turn.** Checks of new versions and quick matches go
  first, to the ``interactive`` queue, shared by *person*, not by account
  (tournaments.play.shares: accounts seen from one network are one person; accounts with
  no accepted bot share one newcomers' pool). The next process goes to the person who
  used least in the last half hour, then the one with the fewest in flight, served least
  recently (``Turns``). A person holds at most ``owner_cap`` at once, plus one of the kind
  they have none of in flight (a quick match beside their own upload's check) when that
  leaves a process free or they used less than everyone else waiting, so a backlog of
  one person's slow checks, from however many accounts, leaves processes for others.
- **Each side keeps its share.** While batch work plays or waits, interactive work holds
  at most all but BATCH_SHARE processes (``interactive_limit``); batch work leaves
  INTERACTIVE_RESERVE processes idle for a person's first check or quick match, but
  always may take its own BATCH_SHARE (``batch_room``). Tournament matches (owners in turn)
  and then the ladder go to the ``tournaments`` queue; the ladder only gets what no
  waiting tournament match wants. TOURNAMENT_SLOTS and LADDER_SLOTS are optional caps on
  top (0: none).
- **A dead worker's matches leave flight** as soon as its heartbeats stop
  (``on_dead_workers``), not when their leases run out.

- **Tables aside.** A person's table holds a table slot (TABLE_SLOTS, taken when it is
  made) and goes to the ``tables`` queue, whose worker gives it a thread: it is never
  counted above, nor sent to the processes that play bots (``fill_tables``).

``dispatch`` runs whenever work arrives or ends (an upload, a quick match, a tournament
started, cancelled or resumed, a match or check over), when a worker first announces
itself, and from the reaper (a lost message, a dead worker). Concurrent calls are
serialised by a lock (a PostgreSQL advisory lock; SQLite serialises writers itself), so
the processes are never overfilled.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Max, Min, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from judge.games import GAMES
from judge.referee import rotations
from tournaments import wake
from tournaments.competitions import ladder
from tournaments.models import BotVersion, Duel, Match, MatchPart, Tournament, Worker
from tournaments.play import clocks, locks, shares

#: The tasks the scheduler sends, by their stable names (tournaments.play.tasks,
#: tournaments.play.version_checks).
PLAY_MATCH = "tournaments.tasks.play_match"
CHECK_VERSION = "tournaments.checks.check_version"

INTERACTIVE = "interactive"
TOURNAMENTS = "tournaments"
TABLES = settings.TABLES_QUEUE
#: The advisory lock held while capacity is counted and filled.
DISPATCH_LOCK = 0x6A756467  # "judg"
#: Beats a worker may miss before its processes no longer count.
LIVE_BEATS = 3
#: However short the beat, a worker's matches are taken for lost only after this long with
#: no beat: a loaded host delays a beat by seconds, and a live worker's match must not be
#: taken from it.
DEAD_AFTER = dt.timedelta(seconds=10)
#: A worker not heard from for this long is forgotten (one killed outright leaves its row).
FORGET_AFTER = dt.timedelta(days=1)

#: A match that was sent and may be on a worker.
IN_FLIGHT = Q(status=Match.Status.RUNNING) | Q(status=Match.Status.QUEUED, sent_at__isnull=False)
#: A check that was sent and may be on a worker.
CHECK_IN_FLIGHT = Q(status=BotVersion.Status.CHECKING) | Q(
    status=BotVersion.Status.PENDING, check_sent_at__isnull=False
)

Owner = int | None


def on_dead_workers() -> Q:
    """Running matches held by a worker whose heartbeats stopped (no beat for LIVE_BEATS
    beats and DEAD_AFTER: killed, or its host gone). They leave flight then, and the
    reaper queues them again (tournaments.play.lease) without waiting for their leases."""
    now = timezone.now()
    dead = Worker.objects.filter(seen_at__lt=min(live_since(now), now - DEAD_AFTER))
    held = Q(pk__in=[])
    for name in dead.values_list("name", flat=True):
        held |= Q(worker__startswith=f"{name}:")
    return Q(status=Match.Status.RUNNING) & held


def in_flight() -> Q:
    """Matches that hold a process now: IN_FLIGHT but those of dead workers."""
    return IN_FLIGHT & ~on_dead_workers()


# The workers' capacity.


def announce(name: str, processes: int, languages: list[str] | None = None, host: str = "") -> bool:
    """Record that worker ``name`` is alive with ``processes`` (and, when given, the
    languages it can run) on ``host`` (whose queue of match parts it takes; "": none);
    True when that is news (a new worker, or one whose size changed): the caller
    dispatches then."""
    now = timezone.now()
    known = Worker.objects.filter(name=name, seen_at__gte=live_since(now))
    fields: dict[str, Any] = {"seen_at": now, "host": host}
    if languages is not None:
        fields["languages"] = languages
    if known.filter(processes=processes).update(**fields):
        return False
    Worker.objects.update_or_create(
        name=name, defaults={"processes": processes, "started_at": now, **fields}
    )
    Worker.objects.filter(seen_at__lt=now - FORGET_AFTER).delete()  # killed long ago
    return True


def withdraw(name: str) -> None:
    """Worker ``name`` is stopping: its processes no longer count."""
    Worker.objects.filter(name=name).delete()


def live_since(now: dt.datetime) -> dt.datetime:
    return now - dt.timedelta(seconds=LIVE_BEATS * settings.WORKER_HEARTBEAT_SECONDS)


def live_workers() -> QuerySet[Worker]:
    return Worker.objects.filter(seen_at__gte=live_since(timezone.now()))


def capacity() -> int:
    """Worker processes alive now. Tasks run in-process (the tests' eager mode, no worker
    announces itself): one more than the reserve, so batch work plays one at a time."""
    total = int(live_workers().aggregate(n=Sum("processes"))["n"] or 0)
    if not total and _eager():
        return settings.INTERACTIVE_RESERVE + 1
    return total


def languages_missing() -> list[str]:
    """The languages (sandbox.runtimes names) no live worker can run: a check or match of
    such a bot would end at once, so the upload page marks them. Empty when no worker is
    alive (nothing is known then; uploads wait for one)."""
    from sandbox.runtimes import RUNTIMES

    rows = list(live_workers().values_list("languages", flat=True))
    if not rows:
        return []
    runnable = {name for languages in rows for name in languages or []}
    return [name for name in RUNTIMES if name not in runnable]


# A duplicate match's rotations on different hosts (issue 43, SPLIT_ROTATIONS_ACROSS_HOSTS):
# its first part goes where any match goes; each later part to the queue of a live host
# that played none of the match's earlier parts (``pick_host``), so that no host's kernel
# caches carry a deal from one of its rotations to the next.


def host_queue(host: str) -> str:
    """The queue of match parts that the workers of ``host`` take (tournaments.play.tasks
    adds it to every worker that takes tournament matches)."""
    return f"{TOURNAMENTS}.host.{re.sub(r'[^A-Za-z0-9_.-]', '-', host)}"


def live_hosts() -> dict[str, int]:
    """The live hosts that take match parts, each with its workers' processes."""
    rows = live_workers().exclude(host="").values("host").annotate(n=Sum("processes"))
    return {row["host"]: int(row["n"] or 0) for row in rows.order_by()}


def rotation_parts(players: int, duplicate: bool) -> int:
    """How many parts a match's rotations are played in now: one per live host, at most
    one per seating, when SPLIT_ROTATIONS_ACROSS_HOSTS is "auto" and two hosts or more are
    live; else 1 (played whole: on one host a split cannot help against its caches)."""
    if not duplicate or settings.SPLIT_ROTATIONS_ACROSS_HOSTS != "auto":
        return 1
    hosts = len(live_hosts())
    return min(hosts, len(rotations(players))) if hosts >= 2 else 1


def pick_host(match: Match) -> str:
    """The host whose queue the match's next part goes to: a live host that played none of
    its earlier parts, the one with the most processes free; if every live host played one,
    another than the last part's (then any). "" when no live host takes parts."""
    free = live_hosts()
    if not free:
        return ""
    names = dict(live_workers().exclude(host="").values_list("name", "host"))
    for held in Match.objects.filter(status=Match.Status.RUNNING).values_list("worker", flat=True):
        host = names.get(held.rpartition(":")[0])
        if host in free:
            free[host] -= 1
    played = list(
        MatchPart.objects.filter(match_id=match.pk, index__lt=match.part)
        .order_by("index")
        .values_list("host", flat=True)
    )
    fresh = [host for host in free if host not in played]
    others = [host for host in free if not played or host != played[-1]]
    return max(fresh or others or list(free), key=lambda host: (free[host], host))


def _eager() -> bool:
    return bool(current_app.conf.task_always_eager)


def batch_limit(processes: int) -> int:
    """Processes batch work may hold with no interactive work in flight: all but the
    reserve (with no more processes than the reserve, one, or nothing would play)."""
    if processes <= 0:
        return 0
    return max(1, processes - settings.INTERACTIVE_RESERVE)


def owner_cap(processes: int) -> int:
    """Interactive work one owner may have in flight: INTERACTIVE_OWNER_CAP, or by
    default half of what the reserve leaves (at least one)."""
    if settings.INTERACTIVE_OWNER_CAP:
        return settings.INTERACTIVE_OWNER_CAP
    return max(1, (processes - settings.INTERACTIVE_RESERVE) // 2)


# What waits and what is in flight.


#: Whose batch work a match is: its tournament's owner, or its duel's.
BATCH_OWNER = Coalesce(F("tournament__owner"), F("duel__owner"))


def tournament_matches() -> QuerySet[Match]:
    """Batch work taken owners in turn: tournaments' matches and duels' rounds."""
    return Match.objects.filter(Q(tournament__isnull=False) | Q(duel__isnull=False))


def owned_by(owner: Owner) -> Q:
    """Batch work of ``owner`` (None: tournaments and house duels without an owner)."""
    if owner is None:
        return Q(tournament__isnull=False, tournament__owner__isnull=True) | Q(
            duel__isnull=False, duel__owner__isnull=True
        )
    return Q(tournament__owner=owner) | Q(duel__owner=owner)


def quick_matches() -> QuerySet[Match]:
    """Quick matches: no tournament, ladder or duel, and no person's table (``tables``)."""
    return Match.objects.filter(
        tournament__isnull=True, ladder__isnull=True, duel__isnull=True, table_slot__isnull=True
    )


def due() -> Q:
    """Queued matches that may be sent now (a voided one waits a while: ``enqueued_at`` is
    in the future until then)."""
    return Q(status=Match.Status.QUEUED, sent_at__isnull=True) & (
        Q(enqueued_at__isnull=True) | Q(enqueued_at__lte=timezone.now())
    )


def waiting() -> QuerySet[Match]:
    """Tournament matches queued in the database, not yet sent, due."""
    return tournament_matches().filter(due())


def waiting_quick() -> QuerySet[Match]:
    return quick_matches().filter(due())


def waiting_checks() -> QuerySet[BotVersion]:
    """Versions whose check waits in the database (a retired one's check never runs)."""
    return BotVersion.objects.filter(
        status=BotVersion.Status.PENDING,
        check_sent_at__isnull=True,
        retired=False,
        bot__retired=False,
    )


def _counts(rows: QuerySet[Any], owner: str) -> dict[Owner, int]:
    grouped = rows.values(owner).annotate(n=Count("id")).order_by()
    return {row[owner]: row["n"] for row in grouped}


def in_flight_by_owner() -> dict[Owner, int]:
    """Tournament matches in flight per tournament owner (None: no owner)."""
    return _counts(tournament_matches().filter(in_flight()).annotate(owner=BATCH_OWNER), "owner")


def interactive_in_flight_by_kind() -> dict[tuple[Owner, str], int]:
    """Checks and quick matches in flight per owner (the bot's, the requester) and kind."""
    busy = {
        (owner, "quick"): n
        for owner, n in _counts(quick_matches().filter(in_flight()), "requested_by").items()
    }
    for owner, n in _counts(BotVersion.objects.filter(CHECK_IN_FLIGHT), "bot__owner").items():
        busy[(owner, "check")] = n
    return busy


def interactive_in_flight_by_owner() -> dict[Owner, int]:
    """Checks and quick matches in flight per owner."""
    busy: dict[Owner, int] = {}
    for (owner, _), n in interactive_in_flight_by_kind().items():
        busy[owner] = busy.get(owner, 0) + n
    return busy


#: How far back "served least recently" looks for interactive work.
SERVED_WINDOW = dt.timedelta(hours=1)


def interactive_served() -> dict[Owner, float]:
    """When each owner last had a check or quick match sent (epoch seconds)."""
    since = timezone.now() - SERVED_WINDOW
    served: dict[Owner, float] = {}
    sources = [
        (quick_matches().filter(sent_at__gte=since), "requested_by", "sent_at"),
        (BotVersion.objects.filter(check_sent_at__gte=since), "bot__owner", "check_sent_at"),
    ]
    for rows, owner, field in sources:
        for row in rows.values(owner).annotate(last=Max(field)).order_by():
            served[row[owner]] = max(served.get(row[owner], 0.0), row["last"].timestamp())
    return served


def last_served() -> dict[Owner, float]:
    """When each owner of a running tournament last had a match sent (epoch seconds)."""
    rows = (
        tournament_matches()
        .filter(
            Q(tournament__status=Tournament.Status.RUNNING) | Q(duel__status=Duel.Status.RUNNING),
            sent_at__isnull=False,
        )
        .annotate(owner=BATCH_OWNER)
        .values("owner")
        .annotate(last=Max("sent_at"))
        .order_by()
    )
    return {row["owner"]: row["last"].timestamp() for row in rows}


def waiting_owners(busy: dict[Owner, int], served: dict[Owner, float]) -> list[Owner]:
    """Owners with tournament matches waiting, the one who gets the next process first:
    fewest in flight, then the one served least recently (never served: first), then the
    one whose match has waited longest."""
    rows = waiting().annotate(owner=BATCH_OWNER).values("owner").annotate(first=Min("id"))
    rows = rows.order_by()

    def rank(row: dict[str, Any]) -> tuple[int, float, int]:
        owner = row["owner"]
        return busy.get(owner, 0), served.get(owner, 0.0), row["first"]

    return [row["owner"] for row in sorted(rows, key=rank)]


def next_match(owner: Owner) -> Match | None:
    """The owner's next match: oldest tournament first, in the schedule's order, then the
    duels' rounds."""
    mine = waiting().filter(owned_by(owner))
    first = F("tournament_id").asc(nulls_last=True)  # tournaments, then duels, on any database
    return mine.order_by(first, "duel_id", "number", "id").first()


@dataclass(frozen=True)
class Item:
    """A check or a quick match waiting in the database."""

    kind: str  # "check" or "quick"
    pk: int
    since: dt.datetime


#: The most waiting interactive items one dispatch reads (quotas keep far fewer waiting).
INTERACTIVE_READ_AT_MOST = 5000


def interactive_queue() -> dict[Owner, deque[Item]]:
    """Each owner's waiting checks and quick matches, oldest first."""
    rows = [
        (owner, Item("quick", pk, since))
        for pk, owner, since in waiting_quick()
        .order_by("id")
        .values_list("id", "requested_by", "created_at")[:INTERACTIVE_READ_AT_MOST]
    ]
    rows += [
        (owner, Item("check", pk, since))
        for pk, owner, since in waiting_checks()
        .order_by("id")
        .values_list("id", "bot__owner", "created_at")[:INTERACTIVE_READ_AT_MOST]
    ]
    queues: dict[Owner, deque[Item]] = {}
    for owner, item in sorted(rows, key=lambda row: row[1].since):
        queues.setdefault(owner, deque()).append(item)
    return queues


_local = threading.local()


def dispatch() -> list[int]:
    """Fill the free processes fairly; the ids of the matches sent (after commit), in
    order (checks sent are not listed).

    With tasks run in-process (no broker), sending plays the match at once, and its end
    calls ``dispatch`` again: that inner call only asks this loop to go round once more,
    so the stack does not grow with the number of matches.
    """
    if getattr(_local, "running", False):
        _local.again = True
        return []
    _local.running = True
    sent: list[int] = []
    try:
        while True:
            _local.again = False
            sent += fill_slots()
            if not _local.again:
                return sent
    finally:
        _local.running = False


@transaction.atomic
def fill_slots() -> list[int]:
    """One pass of ``dispatch`` in one transaction, under the dispatch lock."""
    locks.hold_for_transaction(DISPATCH_LOCK)
    processes = capacity()
    interactive = sum(interactive_in_flight_by_owner().values())
    busy = in_flight_by_owner()
    batch = sum(busy.values()) + ladder.ladder_matches().filter(in_flight()).count()
    quick, checks = fill_interactive(processes - interactive - batch, processes, batch)
    room = batch_room(processes, interactive + len(quick) + len(checks), batch)
    if settings.TOURNAMENT_SLOTS:
        room = min(room, settings.TOURNAMENT_SLOTS - batch)
    matches = fill_tournaments(room, busy)
    if room > len(matches):  # no tournament match waits: the ladder may have what is left
        matches += ladder.fill(room - len(matches))
    tables = fill_tables()
    send(quick, INTERACTIVE)
    send(matches, TOURNAMENTS)
    send(tables, TABLES)
    send_checks(checks)
    return [match.pk for match in quick + matches + tables]


# The shares: how many processes each kind of work, and each person, may hold.


def interactive_limit(processes: int, batch_in_flight: int) -> int:
    """Processes checks and quick matches may hold together: all but BATCH_SHARE while
    batch work (tournaments, duels, the ladder) plays or waits, so an interactive flood
    never stops a tournament (with no more processes than BATCH_SHARE: all of them)."""
    if processes <= settings.BATCH_SHARE:
        return processes
    if batch_in_flight or batch_waits():
        return processes - settings.BATCH_SHARE
    return processes


def batch_waits() -> bool:
    """Some batch work could use a process: a tournament or duel match waits, or a game's
    ladder has two entrants or more."""
    if waiting().exists():
        return True
    if not settings.LADDER_ENABLED:
        return False
    return any(len(ladder.entrant_bots(game)) >= 2 for game in GAMES)


def batch_room(processes: int, interactive: int, batch: int) -> int:
    """Processes batch work may take now: those left idle after INTERACTIVE_RESERVE, and
    at least its own BATCH_SHARE whatever interactive work holds."""
    free = processes - interactive - batch
    leave_reserve = batch_limit(processes) - interactive - batch
    own_share = min(settings.BATCH_SHARE, processes) - batch
    return min(free, max(leave_reserve, own_share))


@dataclass
class Turns:
    """Whose interactive item goes next: persons (tournaments.play.shares) in turn.

    A person holds at most ``cap`` checks and quick matches at once, and one more of the
    kind they have none of in flight (a quick match beside their own upload's check) when
    that still leaves a process free, or when they used less than everyone else waiting.
    Newcomers together hold at most ``pool_cap``. Among those who may, the next process
    goes to the person who used least in the last usage window, then to the one with the
    fewest in flight, served least recently, whose item waited longest.
    """

    share: dict[Owner, shares.Share]
    busy: dict[tuple[str, str], int]
    used: dict[str, float]
    served: dict[str, float]
    cap: int
    pool_cap: int

    @classmethod
    def of(cls, owners: set[Owner], flight: dict[tuple[Owner, str], int], cap: int) -> Turns:
        share = shares.shares_of(owners)
        busy: dict[tuple[str, str], int] = {}
        for (owner, kind), n in flight.items():
            key = (share[owner].person, kind)
            busy[key] = busy.get(key, 0) + n
        served: dict[str, float] = {}
        for owner, when in interactive_served().items():
            if owner in share:
                person = share[owner].person
                served[person] = max(served.get(person, 0.0), when)
        return cls(share, busy, shares.usage(share), served, cap, shares.pool_slots(cap))

    def total(self, person: str) -> int:
        return self.busy.get((person, "check"), 0) + self.busy.get((person, "quick"), 0)

    def pool(self) -> int:
        """Newcomers' items in flight."""
        new = {s.person for s in self.share.values() if s.newcomer}
        return sum(n for (person, _), n in self.busy.items() if person in new)

    def candidate(
        self, owner: Owner, items: deque[Item], spare: bool, lighter: bool
    ) -> Item | None:
        """The owner's item that may go now, if any (oldest first)."""
        share = self.share[owner]
        if share.newcomer and self.pool() >= self.pool_cap:
            return None
        total = self.total(share.person)
        if total < self.cap:
            return items[0]
        if total > self.cap or not (spare or lighter):
            return None
        for item in items:  # one of each: a kind the person has none of in flight
            if not self.busy.get((share.person, item.kind), 0):
                return item
        return None

    def lighter(self, person: str, waiting: set[str]) -> bool:
        """Did ``person`` use less than every other person with work waiting?"""
        others = [self.used.get(other, 0.0) for other in waiting if other != person]
        return bool(others) and self.used.get(person, 0.0) < min(others)

    def rank(self, owner: Owner, item: Item) -> tuple[float, int, float, dt.datetime]:
        person = self.share[owner].person
        return (
            self.used.get(person, 0.0),
            self.total(person),
            self.served.get(person, 0.0),
            item.since,
        )

    def take(self, owner: Owner, item: Item) -> None:
        person = self.share[owner].person
        self.busy[(person, item.kind)] = self.busy.get((person, item.kind), 0) + 1
        self.served[person] = timezone.now().timestamp()


def next_interactive(
    queues: dict[Owner, deque[Item]], turns: Turns, spare: bool
) -> tuple[Owner, Item] | None:
    """The owner and item that get the next process, or None when nobody may."""
    waiting = {turns.share[owner].person for owner, items in queues.items() if items}
    picks = []
    for owner, items in queues.items():
        if items:
            lighter = turns.lighter(turns.share[owner].person, waiting)
            item = turns.candidate(owner, items, spare, lighter)
            if item is not None:
                picks.append((turns.rank(owner, item), owner, item))
    if not picks:
        return None
    _, owner, item = min(picks, key=lambda pick: pick[0])
    return owner, item


def fill_interactive(
    free: int, processes: int, batch_in_flight: int
) -> tuple[list[Match], list[int]]:
    """Give up to ``free`` processes to waiting checks and quick matches, persons in turn
    (``Turns``), within ``interactive_limit``; marks them sent. The quick matches and the
    version ids whose checks were sent."""
    if free <= 0:
        return [], []
    queues = interactive_queue()
    if not queues:
        return [], []
    flight = interactive_in_flight_by_kind()
    turns = Turns.of(set(queues) | {owner for owner, _ in flight}, flight, owner_cap(processes))
    running = sum(flight.values())
    limit = interactive_limit(processes, batch_in_flight)
    quick: list[int] = []
    checks: list[int] = []
    # A process stays free after an extra item even were batch work to arrive.
    keep_free = min(limit, processes - settings.BATCH_SHARE)
    while free > 0 and running < limit:
        pick = next_interactive(queues, turns, spare=running + 1 < keep_free)
        if pick is None:
            break
        owner, item = pick
        queues[owner].remove(item)
        turns.take(owner, item)
        (quick if item.kind == "quick" else checks).append(item.pk)
        free -= 1
        running += 1
    now = timezone.now()
    Match.objects.filter(pk__in=quick).update(sent_at=now)
    BotVersion.objects.filter(pk__in=checks).update(check_sent_at=now)
    chosen = Match.objects.in_bulk(quick)
    return [chosen[pk] for pk in quick], checks


def fill_tournaments(room: int, busy: dict[Owner, int]) -> list[Match]:
    """Give up to ``room`` processes to waiting tournament matches, owners in turn."""
    served = last_served()
    sent: list[Match] = []
    while len(sent) < room:
        owners = waiting_owners(busy, served)
        match = next_match(owners[0]) if owners else None
        if match is None:
            break
        now = timezone.now()
        Match.objects.filter(pk=match.pk).update(sent_at=now)
        busy[owners[0]] = busy.get(owners[0], 0) + 1
        served[owners[0]] = now.timestamp()
        sent.append(match)
    return sent


# A person's table has capacity of its own: the slot it took when it was made
# (tournaments.play.human_match), played by the tables' worker (a thread each). Tables are
# never counted above nor sent to the processes that play bots.


def table_matches() -> QuerySet[Match]:
    """People's tables (each holds a table slot while queued or running)."""
    return Match.objects.filter(table_slot__isnull=False)


def fill_tables() -> list[Match]:
    """Every table waiting in the database, due, marked sent: its slot is its capacity."""
    waiting_tables = list(table_matches().filter(due()).order_by("id"))
    Match.objects.filter(pk__in=[t.pk for t in waiting_tables]).update(sent_at=timezone.now())
    return waiting_tables


def send(matches: Iterable[Match], queue: str) -> None:
    """Enqueue ``play_match`` for each match on ``queue`` after commit, each with its
    wall-clock budget as the task's time limits; a later part of a match played on
    several hosts goes to its host's queue instead (``pick_host``, noted in ``sent_to``)."""
    jobs = [(match.pk, budget(match), _queue_of(match, queue)) for match in matches]
    if not jobs:
        return

    def send_all() -> None:
        for match_id, seconds, to in jobs:
            _task(PLAY_MATCH).apply_async((match_id,), queue=to, **clocks.time_limits(seconds))

    transaction.on_commit(send_all)


def _queue_of(match: Match, queue: str) -> str:
    """``queue``, or the queue of the host chosen for a later part of a split match."""
    if match.parts <= 1 or match.part == 0:
        return queue
    host = pick_host(match)
    Match.objects.filter(pk=match.pk).update(sent_to=host)
    return host_queue(host) if host else queue


def send_checks(version_ids: list[int]) -> None:
    """Enqueue the checks of these versions on the interactive queue after commit."""
    if not version_ids:
        return

    def send_all() -> None:
        for version_id in version_ids:
            _task(CHECK_VERSION).apply_async((version_id,), queue=INTERACTIVE)

    transaction.on_commit(send_all)


def budget(match: Match) -> int:
    return clocks.match_budget(
        match.game,
        match.seats.count(),
        match.games,
        match.duplicate,
        match.time_control,
        match.options,
    )


def dispatch_after_commit() -> None:
    """Run ``dispatch`` once the current transaction commits (a process may have freed):
    once per transaction, with the rooms below (``tournaments.wake``)."""
    wake.dispatch_after_commit()


def on_work_changed(**_: Any) -> None:
    """The receiver of tournaments.wake.work_changed (connected in apps.py): the rooms
    below this one wake the dispatcher through it."""
    dispatch()


def _task(name: str) -> Any:
    """The registered Celery task ``name`` (apps.py imports the task modules in every
    process), so the scheduler sends work without importing the modules that run it."""
    return current_app.tasks[name]
