"""Whose share a piece of interactive work draws on: the person behind the account.

Registration allows several accounts an hour from one address, so sharing the workers by
account gives a person with three accounts three shares. Shared systems group the
accounts first and share among the groups: Slurm's fair-share tree gives each account
(an association) its shares and splits them among the users under it, and rate limiters
count a whole network (an IPv4 /24, an IPv6 /64) rather than one address. Here:

- **A person** is the accounts seen from a common network (tournaments.guard.addresses:
  where each registered, signed in and acted from, in the last SHARE_ADDRESS_DAYS).
  Accounts that share a network, directly or through another account with work, are one
  person; an account never seen from a network (made inside the server) is a person alone.
- **Newcomers** (persons none of whose accounts has an accepted bot) share one small pool
  (SHARE_NEWCOMER_SLOTS processes together, by default one more than a person's cap),
  persons in turn inside it: a thousand fresh
  accounts from a thousand networks get one pool, not a thousand shares.
- **Usage**: the process-seconds each person's checks and quick matches held in the last
  USAGE_WINDOW. The scheduler serves the person who used least first (Slurm's fair-share
  factor falls as usage grows), so one who has held a process for minutes waits behind
  one who just arrived.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from tournaments.models import AccountAddress, BotVersion, Match

#: How far back a person's use of the interactive processes counts.
USAGE_WINDOW = dt.timedelta(minutes=30)
#: The person of work with no owner (house bots, anonymous quick matches).
HOUSE = "house"

Owner = int | None


@dataclass(frozen=True)
class Share:
    """Who an owner's interactive work counts against: its person, and whether that
    person's work is in the newcomers' pool."""

    person: str
    newcomer: bool


def shares_of(owners: Collection[Owner]) -> dict[Owner, Share]:
    """Each owner's share: accounts grouped into persons, newcomers marked."""
    accounts = [owner for owner in owners if owner is not None]
    person = persons(accounts)
    fresh = newcomers(accounts)
    # A person is new while none of their accounts has an accepted bot.
    known = {person[owner] for owner in accounts if owner not in fresh}
    found: dict[Owner, Share] = {None: Share(HOUSE, False)}
    for owner in accounts:
        found[owner] = Share(person[owner], person[owner] not in known)
    return found


def persons(accounts: Collection[int]) -> dict[int, str]:
    """Account -> its person ("person:<smallest account id>"): the accounts joined by a
    network they were seen from lately (union-find over account-network pairs)."""
    parent = {account: account for account in accounts}

    def root(account: int) -> int:
        while parent[account] != account:
            parent[account] = parent[parent[account]]
            account = parent[account]
        return account

    since = timezone.now() - dt.timedelta(days=settings.SHARE_ADDRESS_DAYS)
    first_on: dict[str, int] = {}
    rows = AccountAddress.objects.filter(user_id__in=list(accounts), last_seen__gte=since)
    for account, network in rows.values_list("user_id", "network"):
        if network in first_on:
            low, high = sorted((root(first_on[network]), root(account)))
            parent[high] = low
        else:
            first_on[network] = account
    return {account: f"person:{root(account)}" for account in accounts}


def newcomers(accounts: Collection[int]) -> set[int]:
    """The accounts none of whose bots has an accepted version."""
    accepted = BotVersion.objects.filter(
        bot__owner_id__in=list(accounts), status=BotVersion.Status.ACCEPTED
    )
    return set(accounts) - set(accepted.values_list("bot__owner_id", flat=True).distinct())


def usage(share: dict[Owner, Share]) -> dict[str, float]:
    """Person -> process-seconds their checks and quick matches held in the last
    USAGE_WINDOW (those still running: until now)."""
    now = timezone.now()
    since = now - USAGE_WINDOW
    used: dict[str, float] = {}

    def add(owner: Owner, seconds: float) -> None:
        if owner in share:
            person = share[owner].person
            used[person] = used.get(person, 0.0) + max(0.0, seconds)

    for owner, seconds in _quick_seconds(share, since, now):
        add(owner, seconds)
    for owner, seconds in _check_seconds(share, since, now):
        add(owner, seconds)
    return used


def _quick_seconds(
    owners: Iterable[Owner], since: dt.datetime, now: dt.datetime
) -> Iterable[tuple[Owner, float]]:
    """Each quick match's time on a process within the window (a person's table holds
    no process: its time is not counted)."""
    quick = Match.objects.filter(
        tournament__isnull=True,
        ladder__isnull=True,
        duel__isnull=True,
        table_slot__isnull=True,
        requested_by_id__in=[owner for owner in owners if owner is not None],
        started_at__isnull=False,
    ).filter(Q(finished_at__gte=since) | Q(status=Match.Status.RUNNING))
    rows: Iterable[Any] = quick.values_list("requested_by_id", "started_at", "finished_at")
    for owner, began, ended in rows:
        yield owner, ((ended or now) - max(began, since)).total_seconds()


def _check_seconds(
    owners: Iterable[Owner], since: dt.datetime, now: dt.datetime
) -> Iterable[tuple[Owner, float]]:
    """Each check's time on a process: its report's seconds once over, until now while
    it runs."""
    checks = BotVersion.objects.filter(
        bot__owner_id__in=[owner for owner in owners if owner is not None],
        check_sent_at__gte=since,
    )
    rows: Iterable[Any] = checks.values_list(
        "bot__owner_id", "status", "check_sent_at", "check_report__seconds"
    )
    running = (BotVersion.Status.PENDING, BotVersion.Status.CHECKING)
    for owner, status, sent, seconds in rows:
        if status in running:
            yield owner, (now - sent).total_seconds()
        else:
            yield owner, float(seconds or 0.0)


def pool_slots(owner_cap: int) -> int:
    """Processes the newcomers' pool holds at once: SHARE_NEWCOMER_SLOTS, or by default one
    more than a person's cap, so that one new person alone never fills it (a first-time
    author would wait for a flood's whole slow check)."""
    return settings.SHARE_NEWCOMER_SLOTS or owner_cap + 1
