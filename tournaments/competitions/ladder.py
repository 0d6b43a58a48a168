"""The continuous ladder per game: every accepted bot keeps playing until its rating is known.

The entrants of a game's ladder are the latest accepted, unretired version of each unretired
bot of that game: a new version replaces the old one at once (the old keeps its matches
and the bot its rating), a retired bot or version stops. Which tables play next is
``tournaments.competitions.matchmaking.choose`` (pure; the rule is in its docstring and in
docs/ladder.md), fed with each entrant's rating as every page shows it
(``field_view.standing``: the one rating, the field pass's view where the bot has one) and
its ``uncertainty``.

The ladder plays in the batch capacity (tournaments.play.dispatch): only in what no waiting
check, quick match or tournament match gets (and at most LADDER_SLOTS at once, when set);
a bot sits at most one ladder table at a time. ``dispatch`` fills the free processes
whenever a match ends and from Celery beat every LADDER_INTERVAL_SECONDS
(``tasks.ladder_tick``), so a new upload is playing as soon as its check accepts it and a
process is free. Ladder matches are rated,
with the standard clocks and duplicate deals (the calibration study: they save a third
to three quarters of the games needed to separate two bots in all three games).
"""

from __future__ import annotations

import itertools
import math
import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from django.conf import settings
from django.db.models import Max, QuerySet
from django.utils import timezone

from judge.games import GAMES, game_class
from tournaments.competitions import matchmaking, owners
from tournaments.competitions.time_control import standard_time_control
from tournaments.models import Bot, BotVersion, Ladder, Match, Rating, Seat
from tournaments.rating.model.global_rating import START_DEVIATION
from tournaments.rating.model.results import START_ELO
from tournaments.rating.stored import field_view

#: The deviation of a bot nothing is known about (Elo points): the rating's own start.
PRIOR_DEVIATION = START_DEVIATION
#: A match in flight or waiting to be played.
ACTIVE = (Match.Status.QUEUED, Match.Status.RUNNING)

Player = matchmaking.Player[int]  # keyed by bot version id


def uncertainty(shown: field_view.Standing | None, version_matches: int | None = None) -> float:
    """The standard deviation (Elo points) of a bot's rating, as the scheduler sees it.

    The deviation every page shows (``field_view.standing``: the field pass's joint one
    where the bot has one, else its stored own). A new version is at least as uncertain as
    its own count of rated matches says (``stand_in``), so it plays first even when its
    bot's rating is well known (and before the next pass widens the one shown).
    """
    if shown is None:
        return PRIOR_DEVIATION
    own = stand_in(version_matches) if version_matches is not None else 0.0
    return max(float(shown.deviation), own)


def stand_in(matches: int) -> float:
    """The deviation after ``matches`` near-even units (Fisher information c²/4 each):
    what a version's own matches alone would tell (105 after 10, 49 after 50)."""
    per_unit = matchmaking.C**2 / 4.0
    return 1.0 / math.sqrt(1.0 / PRIOR_DEVIATION**2 + matches * per_unit)


def ladder_of(game: str) -> Ladder:
    ladder, _ = Ladder.objects.get_or_create(game=game)
    return ladder


def entrants(game: str) -> list[BotVersion]:
    """The latest accepted, unretired version of each unretired bot of ``game``, unless
    that version was taken off the ladder for its faults (``ladder_faults``)."""
    latest = _latest_versions(game)
    return list(
        BotVersion.objects.filter(pk__in=latest.values()).select_related("bot").order_by("id")
    )


def entrant_bots(game: str) -> frozenset[int]:
    """The bots ``entrants`` would choose a version of: one query of ids (a page that only
    marks them must not load every entrant's version, code and all)."""
    return frozenset(_latest_versions(game))


def _latest_versions(game: str) -> dict[int, int]:
    """Bot id -> its latest accepted, unretired version's id, for the unretired bots."""
    eligible = BotVersion.objects.filter(
        bot__game=game,
        bot__retired=False,
        status=BotVersion.Status.ACCEPTED,
        retired=False,
    )
    latest: dict[int, tuple[int, bool]] = {}
    rows = eligible.order_by("bot_id", "number").values_list("id", "bot_id", "off_ladder_at")
    for version_id, bot_id, off in rows:
        latest[bot_id] = (version_id, off is not None)
    # A latest version taken off for its faults (ladder_faults) leaves its bot off: an
    # older version does not stand in for it.
    return {bot_id: version_id for bot_id, (version_id, off) in latest.items() if not off}


def ladder_matches() -> QuerySet[Match]:
    return Match.objects.filter(ladder__isnull=False)


def in_flight() -> int:
    """Ladder matches sent or running (the share of the slots they hold)."""
    return ladder_matches().filter(status__in=ACTIVE).count()


def players(versions: Sequence[BotVersion]) -> list[Player]:
    """The scheduler's view of these versions: the rating and deviation every page shows
    (``field_view.standing``), and matches played."""
    found = Rating.objects.filter(bot_id__in=[v.bot_id for v in versions]).select_related("field")
    rows = {r.bot_id: r for r in found}
    own = later_versions_matches(versions)
    result = []
    for version in versions:
        rating = rows.get(version.bot_id)
        shown = None if rating is None else field_view.standing(rating)
        mu = shown.elo if shown is not None else START_ELO
        played = own.get(version.pk, rating.matches if rating is not None else 0)
        sigma = uncertainty(shown, own.get(version.pk))
        owner = owners.code_owner(version)
        result.append(matchmaking.Player(version.pk, mu, sigma, played, owner))
    return result


#: Matches of its own after which a new version is no more uncertain than its stand-in
#: says at the settled deviation (stand_in(50) is 49 Elo): counting further is not needed.
OWN_MATCHES_CAP = 60


def later_versions_matches(versions: Sequence[BotVersion]) -> dict[int, int]:
    """Rated matches of each version that is not its bot's first (up to OWN_MATCHES_CAP):
    a first version's matches are its bot's, which the rating's deviation already counts.
    One small query per such version (an index range of its seats), so a dispatch stays
    cheap however long the history."""
    counts = {}
    for version in versions:
        if version.number > 1:
            seats = Seat.objects.filter(
                version=version, match__status=Match.Status.DONE, match__rated=True
            )
            counts[version.pk] = seats.values("match_id")[:OWN_MATCHES_CAP].count()
    return counts


#: The latest ladder matches of a game whose pairs count as having met (``meetings``).
MEETINGS_WINDOW = 2000


def meetings(game: str) -> Counter[tuple[int, int]]:
    """How often each two versions met in the game's latest MEETINGS_WINDOW ladder
    matches: a pair whose difference is already well measured gives way to others."""
    recent = ladder_matches().filter(game=game, status=Match.Status.DONE).order_by("-id")
    ids = list(recent.values_list("id", flat=True)[:MEETINGS_WINDOW])
    seats = Seat.objects.filter(match_id__in=ids).order_by("match_id", "index")
    met: Counter[tuple[int, int]] = Counter()
    for _, rows in groupby(seats.values_list("match_id", "version_id"), key=itemgetter(0)):
        versions = sorted({version for _, version in rows})
        met.update(itertools.combinations(versions, 2))
    return met


def busy_versions(game: str) -> set[int]:
    """Versions of ``game`` seated at a ladder match not over yet (one table at a time)."""
    active = ladder_matches().filter(game=game, status__in=ACTIVE)
    return set(Seat.objects.filter(match__in=active).values_list("version_id", flat=True))


def table_size(ladder: Ladder, entrant_count: int) -> int:
    """The ladder's table size (the game's default), smaller only when there are fewer
    entrants and the game allows it; 0 when not even its smallest table fills."""
    engine = game_class(ladder.game)
    size = min(ladder.table_size or engine.default_players, engine.max_players, entrant_count)
    return size if size >= engine.min_players else 0


@dataclass(frozen=True)
class Plan:
    """What a game's ladder would play next, and why (``manage.py ladder plan``)."""

    game: str
    size: int
    picks: list[matchmaking.Pick[int]]
    entrants: int
    busy: int
    note: str = ""


#: The ladder chooses on ratings drawn around each entrant's, ``explore_spread``
#: deviations wide (``matchmaking.explored``), from the operating system's entropy.
EXPLORE = random.Random()


def plan(game: str, tables: int, explore: random.Random | None = EXPLORE) -> Plan:
    """The next ``tables`` tables of ``game``'s ladder (nothing is written but its row),
    chosen on ratings drawn around each entrant's by ``explore`` (None: on the
    ratings themselves, as ``manage.py ladder plan`` shows them)."""
    ladder = ladder_of(game)
    versions = entrants(game)
    size = table_size(ladder, owners.seatable(versions))
    busy = busy_versions(game)
    if ladder.paused:
        return Plan(game, size, [], len(versions), len(busy), "paused")
    if not size:
        return Plan(game, size, [], len(versions), len(busy), "too few entrants for a table")
    free = [p for p in players(versions) if p.key not in busy]
    target = settings.LADDER_TARGET_DEVIATION
    met = meetings(game)
    picks = matchmaking.choose(free, size, tables, ladder.deals, target, met, explore)
    note = "" if picks else "every free entrant's rating is settled"
    return Plan(game, size, picks, len(versions), len(busy), note)


def fill(free: int) -> list[Match]:
    """Make up to ``free`` ladder matches (within LADDER_SLOTS, when set), marked sent; the
    caller (dispatch, under its lock) sends them. Games take turns, one table each."""
    if not settings.LADDER_ENABLED:
        return []
    if settings.LADDER_SLOTS:
        free = min(free, settings.LADDER_SLOTS - in_flight())
    if free <= 0:
        return []
    plans = [plan(game, free) for game in games_in_turn()]
    made: list[Match] = []
    for round_ in range(free):
        for game_plan in plans:
            if len(made) < free and round_ < len(game_plan.picks):
                made.append(create(game_plan.game, game_plan.picks[round_]))
    return made


def games_in_turn() -> list[str]:
    """The games, the one whose ladder made its newest match longest ago first."""
    newest = dict(
        ladder_matches().values("game").annotate(n=Max("id")).values_list("game", "n").order_by()
    )
    return sorted(GAMES, key=lambda game: (newest.get(game, 0), game))


def create(game: str, pick: matchmaking.Pick[int]) -> Match:
    """Store one ladder match of ``pick`` (seats shuffled by its secret seed), sent now."""
    ladder = ladder_of(game)
    engine = game_class(game)
    chosen = engine.checked_settings(None, players=len(pick.seats))
    seed = secrets.randbits(62)
    now = timezone.now()
    match = Match.objects.create(
        ladder=ladder,
        game=game,
        variant=chosen.variant,
        options=chosen.options,
        games=ladder.deals,
        duplicate=ladder.duplicate,
        rated=True,
        seed=seed,
        time_control=standard_time_control(game),
        enqueued_at=now,
        sent_at=now,
    )
    order = [p.key for p in pick.seats]
    random.Random(seed).shuffle(order)
    versions = BotVersion.objects.in_bulk(order)
    Seat.objects.bulk_create(
        Seat(match=match, index=i, version=versions[key]) for i, key in enumerate(order)
    )
    return match


@dataclass(frozen=True)
class Summary:
    """A game's ladder as its pages show it: on, paused, who plays, how much in flight."""

    enabled: bool
    paused: bool
    bots: frozenset[int]
    in_flight: int

    @property
    def playing(self) -> bool:
        return self.enabled and not self.paused


def summary(game: str, with_bots: bool = True) -> Summary:
    """Three small queries: the ladder row, the entrants' bot ids (``with_bots``), the
    matches in flight."""
    row = Ladder.objects.filter(game=game).first()
    bots = entrant_bots(game) if with_bots else frozenset()
    active = ladder_matches().filter(game=game, status__in=ACTIVE).count()
    return Summary(settings.LADDER_ENABLED, bool(row and row.paused), bots, active)


def entrant_of(bot: Bot) -> BotVersion | None:
    """The version of ``bot`` on its game's ladder (as ``entrants`` chooses), or None."""
    if bot.retired:
        return None
    latest = latest_accepted(bot)
    return None if latest is None or latest.off_ladder_at is not None else latest


def latest_accepted(bot: Bot) -> BotVersion | None:
    """The bot's latest accepted, unretired version (on the ladder unless taken off)."""
    eligible = bot.versions.filter(status=BotVersion.Status.ACCEPTED, retired=False)
    return eligible.order_by("-number").defer("code", "check_report").first()
