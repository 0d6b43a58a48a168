"""A person's match against bots: one seat is the person's, the others house bots or bots.

A table has capacity of its own: it is sent to the ``tables`` queue, whose worker gives
each table a thread (settings.TABLE_SLOTS of them), and never counts in, or takes, the
processes that play bots' matches (tournaments.play.dispatch): a person thinking holds
nothing that another person's match needs. At most TABLE_SLOTS tables are live (queued or
being played) at once, and one per person; both hold under concurrent requests: the
database enforces the cap and one table per account (Match.Meta.constraints: a table
takes a free slot by inserting it, never by counting first), and a person's other
accounts (tournaments.play.shares.persons: accounts seen from one network) are looked
for under a lock, so several accounts of one person hold one table, not every slot.
Unrated, kept with its replay; one game of one unit of each repeating option (a deal, a
hand); clocks generous for a person but finite: a
person who stops answering times out like a silent bot (the seat is retired and the
engine plays for it). A person may leave at any time, a queued table at once.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet, Value
from django.db.models.functions import Concat
from django.utils import timezone

from judge.bots import policies
from judge.games import game_class
from judge.referee import TimeControl
from judge.rng import derive_seed
from tournaments.bots import bot_actions
from tournaments.errors import ServiceError
from tournaments.guard import quotas
from tournaments.models import LIVE_TABLE, BotVersion, Match, Seat
from tournaments.play import locks, shares
from tournaments.play.human_seat import PERSON_POLICY, post_leave, table_redis
from tournaments.wake import dispatch_after_commit

#: The person's clocks: a minute a move, plus a three-minute bank over the match. The
#: whole match stays within the worker's wall-clock budget (MATCH_BUDGET_CAP_SECONDS).
PERSON_CLOCKS = TimeControl(startup_s=10.0, move_s=60.0, bank_s=180.0)
PERSON_REPORT = "stands for a person at a table (/play/GAME/), never for a bot elsewhere"
#: The person's seat at the table.
PERSON_SEAT = 0
#: When to try again after "all tables are busy" (seconds): tables last a few minutes.
BUSY_RETRY_SECONDS = 120
#: Free slots tried before answering "busy" when concurrent requests take them first.
SLOT_TRIES = 5
#: The advisory lock held while a person's other accounts' tables are looked for.
TABLES_LOCK = 0x7461626C  # "tabl"
#: What a person with a table open from another account is told.
OTHER_ACCOUNT = (
    "another account of yours (seen from your network) has a match at a table; "
    "finish or leave it first"
)


class TablesBusy(ServiceError):
    """Every table slot is live; ``retry_after`` says when to try again (seconds)."""

    def __init__(self, slots: int) -> None:
        super().__init__(
            f"all {slots} tables are busy; try again in a few minutes"
            if slots
            else "this server seats nobody at tables (TABLE_SLOTS=0)"
        )
        self.retry_after = BUSY_RETRY_SECONDS


class AtATable(ServiceError):
    """The person has a live table already (one at a time)."""


def person_version(game: str) -> BotVersion:
    """The version that stands for "a person" at ``game``'s tables (one per game).

    Its status is "rejected", with a report that says why: every other way into a match
    (tournaments, quick matches, duels, the ladder) takes accepted versions only, so a
    person's seat is never given to a match that no person sits at."""
    bot = bot_actions.owner_less_bot(game, "person", PERSON_POLICY)
    version = bot_actions.add_version(bot, b"", f"person:{game}", BotVersion.Status.REJECTED)
    if not version.check_report:
        version.check_report = {"passed": False, "verdict": "person", "reason": PERSON_REPORT}
        version.save(update_fields=["check_report"])
    return version


def live_tables() -> QuerySet[Match]:
    """Tables queued or being played: each holds one of TABLE_SLOTS."""
    return Match.objects.filter(LIVE_TABLE)


def table_matches_of(user: User) -> QuerySet[Match]:
    """Every table ``user`` sat at (live or over)."""
    return Match.objects.filter(requested_by=user, table_slot__isnull=False)


def live_match_of(user: User) -> Match | None:
    """The account's table still queued or being played, if any."""
    return live_tables().filter(requested_by=user).first()


def other_accounts_table(user: User) -> Match | None:
    """A live table of another account of ``user``'s person (shares.persons), if any: a
    person with several accounts may not fill the slots one account at a time."""
    others = dict(live_tables().exclude(requested_by=user).values_list("requested_by", "pk"))
    if not others:
        return None
    person = shares.persons([user.pk, *others])
    mine = person[user.pk]
    found = next((pk for account, pk in others.items() if person[account] == mine), None)
    return None if found is None else Match.objects.get(pk=found)


def person_seat_of(match: Match) -> int | None:
    """The seat index the person holds in ``match`` (None: no person plays it)."""
    seat = match.seats.filter(bot__house_policy=PERSON_POLICY).only("index").first()
    return None if seat is None else seat.index


def request_human_match(
    user: User,
    game: str,
    opponents: Sequence[BotVersion | str],
    variant: str = "",
) -> Match:
    """Queue a match of ``user`` against ``opponents`` (bot versions, or house bot names);
    ServiceError (or QuotaExceeded) says in words what is wrong."""
    engine = game_class(game)
    players = 1 + len(opponents)
    if not engine.min_players <= players <= engine.max_players:
        raise ServiceError(
            f"{game} tables seat {engine.min_players} to {engine.max_players}, not {players}; "
            "choose fewer or more opponents"
        )
    if variant and variant not in engine.variants:
        raise ServiceError(f"{game} has no variant {variant!r}; choose from {engine.variants}")
    _check_opponents(game, opponents)
    try:
        table_redis().ping()
    except Exception as error:  # TableUnavailable, or a Redis that does not answer
        raise ServiceError(f"live tables are not available on this server ({error})") from None
    if live_match_of(user) is not None:
        raise AtATable("you already have a match at a table; finish or leave it first")
    if other_accounts_table(user) is not None:
        raise AtATable(OTHER_ACCOUNT)
    quotas.check_quick_match(user)
    with transaction.atomic():
        seated = [person_version(game)]
        seated += [
            bot_actions.house_version(game, o) if isinstance(o, str) else o for o in opponents
        ]
    match = Match(
        game=game,
        variant=variant,
        options={name: 1 for name in engine.repeat_options},
        games=1,
        rated=False,
        seed=derive_seed(secrets.randbits(48), "person"),
        time_control=PERSON_CLOCKS.to_json(),
        requested_by=user,
    )
    return _seat_at_a_free_slot(user, match, seated)


def _seat_at_a_free_slot(user: User, match: Match, seated: list[BotVersion]) -> Match:
    """Store ``match`` at a free table slot with its seats; the constraints decide races:
    a slot taken meanwhile means another try, the person's own table meanwhile AtATable."""
    for _ in range(SLOT_TRIES):
        taken = set(live_tables().values_list("table_slot", flat=True))
        free = [slot for slot in range(settings.TABLE_SLOTS) if slot not in taken]
        if not free:
            break
        match.pk = None
        match.table_slot = random.choice(free)  # concurrent requests rarely pick the same
        match.enqueued_at = timezone.now()
        try:
            with transaction.atomic():
                locks.hold_for_transaction(TABLES_LOCK)
                if other_accounts_table(user) is not None:
                    raise AtATable(OTHER_ACCOUNT)
                match.save(force_insert=True)
                Seat.objects.bulk_create(
                    Seat(match=match, index=i, version=version) for i, version in enumerate(seated)
                )
                dispatch_after_commit()  # sent to the tables' queue (dispatch.fill_tables)
        except IntegrityError:
            if live_match_of(user) is not None:
                raise AtATable(
                    "you already have a match at a table; finish or leave it first"
                ) from None
            continue
        return match
    raise TablesBusy(settings.TABLE_SLOTS)


def leave_table(match: Match) -> str:
    """The person leaves table ``match``. Queued (no worker has begun it), it is cancelled
    at once and its slot is free; being played, their seat is closed at its open or next
    question and the engine plays it to the end. Returns "cancelled" or "left";
    ServiceError when the match is over."""
    cancelled = Match.objects.filter(pk=match.pk, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED,
        sent_at=None,
        failure=Concat(F("failure"), Value("cancelled: the person left before it began\n")),
    )
    if cancelled:
        return "cancelled"
    status = Match.objects.values_list("status", flat=True).get(pk=match.pk)
    if status != Match.Status.RUNNING:
        raise ServiceError(f"the match is {status}; there is no table to leave")
    post_leave(match.pk)
    return "left"


def _check_opponents(game: str, opponents: Sequence[BotVersion | str]) -> None:
    for other in opponents:
        if isinstance(other, str):
            if other not in policies(game):
                raise ServiceError(
                    f"no house bot {other!r} for {game}; choose from {sorted(policies(game))}"
                )
            continue
        if other.bot.game != game:
            raise ServiceError(f"{other} plays {other.bot.game}, not {game}")
        if other.status != BotVersion.Status.ACCEPTED or other.retired or other.bot.retired:
            raise ServiceError(f"{other} is not an accepted, active version; choose another")
