"""The demo's duel (issue 35): is one house bot stronger than another? The game names the
pair (``Game.demo_duel``). A house duel (no owner: its page is public), played to its
decision by the workers (``follow``) or in this process (``play``), one line per round.

Run again, the demo reuses its decided duel (same bots, same seed), so a second run
costs nothing; ``--fresh`` plays a new one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from judge.games import GAMES
from tournaments.bots import bot_actions
from tournaments.competitions import duels
from tournaments.management.commands._foreground import FOLLOW_S, queue_only
from tournaments.models import Duel, Match
from tournaments.play import lease, tasks

DUEL_SEED = 2026
PAIRS_PER_ROUND = 20

Say = Callable[[str], object]


def demo_game(games: Iterable[str]) -> str | None:
    """The first of ``games`` that names a demo duel, if any."""
    return next((game for game in games if GAMES[game].demo_duel), None)


def contenders(game: str) -> tuple[str, str]:
    """The game's demo duel: (challenger B, baseline A), house policies."""
    pair = GAMES[game].demo_duel
    assert pair is not None, f"{game} names no demo duel"
    return pair


def find_or_start(game: str, fresh: bool) -> Duel:
    """The demo duel: the last one of these bots and seed not cancelled, or a new one."""
    challenger, baseline = contenders(game)
    b = bot_actions.house_version(game, challenger)
    a = bot_actions.house_version(game, baseline)
    if not fresh:
        found = (
            Duel.objects.filter(owner=None, a=a, b=b, seed=DUEL_SEED)
            .exclude(status__in=(Duel.Status.CANCELLED, Duel.Status.FAILED))
            .order_by("-id")
            .first()
        )
        if found is not None:
            return found
    request = duels.DuelRequest(b=b, a=a, pairs_per_round=PAIRS_PER_ROUND, seed=DUEL_SEED)
    with queue_only():  # the rounds wait for whoever plays them (workers or ``play``)
        return duels.create_duel(None, request)


def follow(duel: Duel, say: Say) -> Duel:
    """Wait for the workers to decide the duel, saying each round as it is folded in."""
    shown = -1
    while True:
        duel.refresh_from_db()
        shown = _report(duel, shown, say)
        if duel.status != Duel.Status.RUNNING:
            return duel
        time.sleep(FOLLOW_S)


def play(duel: Duel, say: Say) -> Duel:
    """Play the duel's rounds in this process, as a worker would, until it is decided."""
    shown = -1
    with queue_only():
        lease.reap_matches()
        while True:
            duel.refresh_from_db()
            shown = _report(duel, shown, say)
            if duel.status != Duel.Status.RUNNING:
                return duel
            queued = duel.matches.filter(status=Match.Status.QUEUED).order_by("id")
            match_id = queued.values_list("id", flat=True).first()
            if match_id is None:  # being played elsewhere
                time.sleep(FOLLOW_S)
                lease.reap_matches()
            else:
                tasks.play_match(match_id)


def _report(duel: Duel, shown: int, say: Say) -> int:
    """Say the rounds folded in since round ``shown``; the last round said."""
    history = duel.state.get("history", [])
    for games, llr in history[shown + 1 :]:
        bounds = duel.state["bounds"]
        say(f"  after {games:>4} games: LLR {llr:+.2f} (bounds {bounds[0]:.2f}, {bounds[1]:+.2f})")
    return len(history) - 1


def summary(duel: Duel, address: str) -> list[str]:
    """The duel's decision and estimate, and where its page is."""
    state = duel.state
    elo = state["elo"]
    game = duel.game
    challenger, baseline = contenders(game)
    low = "-inf" if elo["low"] is None else f"{elo['low']:+.1f}"
    high = "+inf" if elo["high"] is None else f"{elo['high']:+.1f}"
    estimate = "unbounded" if elo["estimate"] is None else f"{elo['estimate']:+.1f}"
    return [
        f"Duel #{duel.pk} ({game}): is {challenger} stronger than {baseline}? {duel.status}: "
        f"{state['decision']} after {state['games']} games",
        f"  {challenger} - {baseline}: {estimate} Elo, 95% interval [{low}, {high}]",
        f"  its page: http://{address}/duels/{duel.pk}/",
    ]
