"""The service's Prometheus metrics, computed at scrape time (docs/deploy.md, "Metrics").

Every figure is read when Prometheus asks, from where the truth already is: the
database (what waits, what is in flight, the workers' announced capacity, the waits of
the work begun lately, the field passes) and the deployment's Redis (the counters of
tournaments.play.ops_counters, which workers add to as matches end). So any web process
of any host answers alike, however many there are, and no process keeps a state of its
own that would be lost or split (prometheus-client's multiprocess mode would need every
process's files in one folder of one host; the workers are on other hosts).

The kinds of work are the scheduler's (tournaments.play.dispatch): ``check`` (a new
version's check) and ``quick`` (a quick match) on the interactive side; ``tournament``,
``duel`` and ``ladder`` on the batch side; ``table`` (a person's table).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator

import redis
from django.conf import settings
from django.db.models import Case, CharField, Count, DateTimeField, F, Min, Q, Sum, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from judge.games import GAMES
from tournaments.models import BotVersion, FieldPass, Match
from tournaments.play import dispatch, ops_counters

log = logging.getLogger(__name__)

KINDS = ("check", "quick", "tournament", "duel", "ladder", "table")
MATCH_KINDS = KINDS[1:]
#: The waits' quantiles given.
QUANTILES = (0.5, 0.95)
#: The most begun items per kind whose waits one scrape reads (the newest).
WAITS_READ_AT_MOST = 10_000

#: A match's kind, by what scheduled it.
MATCH_KIND = Case(
    When(table_slot__isnull=False, then=Value("table")),
    When(ladder__isnull=False, then=Value("ladder")),
    When(duel__isnull=False, then=Value("duel")),
    When(tournament__isnull=False, then=Value("tournament")),
    default=Value("quick"),
    output_field=CharField(),
)
#: When a match began to wait: when it was (last) queued, else made.
QUEUED_SINCE = Coalesce(F("enqueued_at"), F("created_at"), output_field=DateTimeField())
#: Queued in the database, not yet sent to a worker.
WAITING = Q(status=Match.Status.QUEUED, sent_at__isnull=True)


def quantile(ordered: list[float], q: float) -> float:
    """The nearest-rank quantile of sorted values (bench/_timing.py's rule)."""
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def seconds_between(earlier: dt.datetime | None, later: dt.datetime | None) -> float:
    """Seconds from ``earlier`` to ``later`` (0 when either is unknown, or they cross)."""
    if earlier is None or later is None:
        return 0.0
    return max(0.0, (later - earlier).total_seconds())


def queue_depths() -> dict[str, tuple[int, float]]:
    """Per kind: how many wait unsent, and how long the oldest has waited (seconds)."""
    now = timezone.now()
    found = {kind: (0, 0.0) for kind in KINDS}
    rows = (
        Match.objects.filter(WAITING)
        .annotate(kind=MATCH_KIND, since=QUEUED_SINCE)
        .values("kind")
        .annotate(n=Count("id"), oldest=Min("since"))
        .order_by()
    )
    for row in rows:
        found[row["kind"]] = (row["n"], max(0.0, (now - row["oldest"]).total_seconds()))
    checks = dispatch.waiting_checks().aggregate(n=Count("id"), oldest=Min("created_at"))
    if checks["n"]:
        found["check"] = (checks["n"], max(0.0, (now - checks["oldest"]).total_seconds()))
    return found


def in_flight() -> dict[str, int]:
    """Per kind: work sent to a worker or being played (a dead worker's not counted)."""
    found = dict.fromkeys(KINDS, 0)
    rows = (
        Match.objects.filter(dispatch.in_flight())
        .annotate(kind=MATCH_KIND)
        .values("kind")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in rows:
        found[row["kind"]] = row["n"]
    found["check"] = BotVersion.objects.filter(dispatch.CHECK_IN_FLIGHT).count()
    return found


def waits(window: dt.timedelta) -> dict[str, list[float]]:
    """Per kind, sorted: the seconds each item begun within ``window`` waited. A match
    waits from when it was queued (again: a resumed tournament's, a lost one's) until a
    worker claimed it; a check from its upload until it was sent to a free process (the
    scheduler sends only to a free one, so it begins then)."""
    since = timezone.now() - window
    found: dict[str, list[float]] = {kind: [] for kind in KINDS}
    begun = (
        Match.objects.filter(started_at__gte=since)
        .annotate(kind=MATCH_KIND, since=QUEUED_SINCE)
        .order_by("-started_at")
        .values_list("kind", "since", "started_at")[: WAITS_READ_AT_MOST * len(MATCH_KINDS)]
    )
    for kind, queued, started in begun:
        found[kind].append(seconds_between(queued, started))
    checks = (
        BotVersion.objects.filter(check_sent_at__gte=since)
        .order_by("-check_sent_at")
        .values_list("created_at", "check_sent_at")[:WAITS_READ_AT_MOST]
    )
    found["check"] = [seconds_between(made, sent) for made, sent in checks]
    return {kind: sorted(values) for kind, values in found.items()}


class SiteCollector(Collector):
    """The metrics of the whole deployment, read at each scrape."""

    def collect(self) -> Iterator[Metric]:
        yield from self.queues()
        yield from self.capacity()
        yield from self.wait_quantiles()
        yield from self.field_passes()
        yield from self.counters()

    def queues(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily(
            "cardjudge_queue_depth",
            "Work waiting in the database for a worker process, by kind",
            labels=["kind"],
        )
        oldest = GaugeMetricFamily(
            "cardjudge_queue_oldest_wait_seconds",
            "How long the oldest waiting item of each kind has waited (0: none waits)",
            labels=["kind"],
        )
        for kind, (n, age) in queue_depths().items():
            depth.add_metric([kind], n)
            oldest.add_metric([kind], age)
        flight = GaugeMetricFamily(
            "cardjudge_in_flight",
            "Matches and checks sent to a worker or being played, by kind",
            labels=["kind"],
        )
        for kind, n in in_flight().items():
            flight.add_metric([kind], n)
        yield from (depth, oldest, flight)

    def capacity(self) -> Iterator[Metric]:
        live = dispatch.live_workers().aggregate(n=Count("id"), processes=Sum("processes"))
        yield GaugeMetricFamily(
            "cardjudge_capacity_processes",
            "Worker processes the live workers announce (the scheduler's capacity)",
            value=live["processes"] or 0,
        )
        yield GaugeMetricFamily(
            "cardjudge_workers_live", "Workers heard from in their last three beats", live["n"]
        )
        yield GaugeMetricFamily(
            "cardjudge_table_slots",
            "People's tables that may be live at once (TABLE_SLOTS)",
            settings.TABLE_SLOTS,
        )

    def wait_quantiles(self) -> Iterator[Metric]:
        window = dt.timedelta(seconds=settings.METRICS_WAIT_WINDOW_SECONDS)
        family = GaugeMetricFamily(
            "cardjudge_wait_seconds",
            f"Waits of the work begun in the last {window.total_seconds():.0f} s "
            "(METRICS_WAIT_WINDOW_SECONDS), by kind and quantile (absent: none begun)",
            labels=["kind", "quantile"],
        )
        count = GaugeMetricFamily(
            "cardjudge_wait_samples",
            "Work begun in the window whose waits the quantiles are of, by kind",
            labels=["kind"],
        )
        for kind, values in waits(window).items():
            count.add_metric([kind], len(values))
            for q in QUANTILES if values else ():
                family.add_metric([kind, str(q)], quantile(values, q))
        yield from (family, count)

    def field_passes(self) -> Iterator[Metric]:
        seconds = GaugeMetricFamily(
            "cardjudge_field_pass_seconds",
            "How long each game's last field pass took",
            labels=["game"],
        )
        age = GaugeMetricFamily(
            "cardjudge_field_pass_age_seconds",
            "Seconds since each game's last field pass ended",
            labels=["game"],
        )
        now = timezone.now()
        for row in FieldPass.objects.filter(game__in=list(GAMES), ran_at__isnull=False):
            seconds.add_metric([row.game], row.seconds)
            age.add_metric([row.game], seconds_between(row.ran_at, now))
        yield from (seconds, age)

    def counters(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "cardjudge_counters_up",
            "1 when the counters below could be read from Redis, else 0",
        )
        try:
            totals = ops_counters.totals()
        except (ops_counters.CountersUnavailable, redis.RedisError) as error:
            log.warning("metrics: the counters could not be read: %s", error)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield self.counter(
            totals,
            ops_counters.FAULTS,
            "cardjudge_bot_faults",
            "Bots' faults in stored match results, by kind",
            "kind",
            ops_counters.FAULT_KINDS,
        )
        yield self.counter(
            totals,
            ops_counters.ATTEMPTS,
            "cardjudge_match_attempts",
            "Match attempts by how they ended (stored, failed, voided: a host fault, ...)",
            "outcome",
            ops_counters.ATTEMPT_OUTCOMES,
        )
        starts = CounterMetricFamily(
            "cardjudge_container_starts", "Bot containers the workers started"
        )
        starts.add_metric([], totals.get((ops_counters.CONTAINER_STARTS_NAME, ""), 0))
        yield starts

    @staticmethod
    def counter(
        totals: dict[tuple[str, str], int],
        name: str,
        metric: str,
        documentation: str,
        label: str,
        known: tuple[str, ...],
    ) -> Metric:
        """A counter family with every known label (0 until counted), plus any other."""
        family = CounterMetricFamily(metric, documentation, labels=[label])
        seen = {value for (counted, value) in totals if counted == name}
        for value in sorted(set(known) | seen):
            family.add_metric([value], totals.get((name, value), 0))
        return family


def registry() -> CollectorRegistry:
    """A registry of the site's metrics alone (no process figures: which of several
    processes answered a scrape is chance, so its memory says nothing of the site)."""
    made = CollectorRegistry(auto_describe=False)
    made.register(SiteCollector())
    return made
