"""Matches for the fair-play tests, stored the way a worker stores them: a Match row and
its seats, claimed (lease.claim_match), played by the real referee and Big Two engine,
and recorded by lease.finish_match with the outcome the referee returned.

The bots are in-process policies: the house greedy bot (honest), or bench.fairplay._cheaters'
CarryingPolicy, which carries each deal's hands to its later rotations through a store
shared by its instances (a perfect channel: what the host's caches let through).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from django.contrib.auth.models import User

from bench.fairplay._cheaters import CarryingPolicy, RelayChannel, SoftPlayPolicy, Store
from judge.bots import Policy, house_policy
from judge.referee import BotInfo, MatchSpec, play_match
from tournaments.models import Bot, BotVersion, Match, Seat, bundle_code
from tournaments.play import lease

GAME = "bigtwo"
PolicyMaker = Callable[[int], Policy]


def greedy(seed: int) -> Policy:
    return house_policy(GAME, "greedy", seed)


def carrying(store: Store) -> PolicyMaker:
    """A maker of cheaters that share ``store`` (one bot, many processes)."""
    return lambda seed: CarryingPolicy(store, seed)


def version_of(name: str, owner: User | None = None) -> BotVersion:
    """An accepted version of a new bot ``name`` (its code is never run: the tests play
    it as an in-process policy)."""
    bot = Bot.objects.create(owner=owner, game=GAME, name=name)
    code, digest = bundle_code({"main.py": f"# {name}\n".encode()})
    return BotVersion.objects.create(
        bot=bot, number=1, code=code, content_hash=digest, status=BotVersion.Status.ACCEPTED
    )


def store_match(
    versions: Sequence[BotVersion],
    makers: Sequence[PolicyMaker],
    seed: int,
    deals: int,
    rated: bool = True,
) -> Match:
    """Play one duplicate two-seat match of ``versions`` (seat order as given) and store
    it through the lease, as a worker does."""
    match = Match.objects.create(
        game=GAME, games=deals, duplicate=True, rated=rated, seed=seed, options={}
    )
    Seat.objects.bulk_create(Seat(match=match, index=i, version=v) for i, v in enumerate(versions))
    attempt = lease.claim_match(match.pk, "fairplay-test")
    assert attempt is not None
    spec = MatchSpec(game=GAME, seed=seed, players=len(versions), games=deals, duplicate=True)

    def start(index: int) -> RelayChannel:
        return RelayChannel(makers[index](seed * 10 + index))

    bots = [BotInfo(v.bot.name, v.content_hash) for v in versions]
    assert lease.finish_match(match.pk, attempt, play_match(spec, bots, start).to_json())
    match.refresh_from_db()
    return match


def round_robins(
    entrants: Sequence[tuple[BotVersion, PolicyMaker]], rounds: int, deals: int, seed: int
) -> list[Match]:
    """``rounds`` round robins of two-seat matches, each table's seats shuffled (as the
    ladder shuffles them)."""
    rng = random.Random(seed)
    played = []
    for round_ in range(rounds):
        for a in range(len(entrants)):
            for b in range(a + 1, len(entrants)):
                pair = [entrants[a], entrants[b]]
                rng.shuffle(pair)
                played.append(
                    store_match(
                        [v for v, _ in pair],
                        [m for _, m in pair],
                        seed=seed * 1000 + round_ * 100 + a * 10 + b,
                        deals=deals,
                    )
                )
    return played


def soft_pair(team: dict[str, object]) -> tuple[PolicyMaker, PolicyMaker]:
    """Makers of a pair in league (bench.fairplay._cheaters.SoftPlayPolicy) sharing ``team``."""
    return (
        lambda seed: SoftPlayPolicy(team, "a", seed),
        lambda seed: SoftPlayPolicy(team, "b", seed),
    )


def random_bot(seed: int) -> Policy:
    return house_policy(GAME, "random", seed)
