"""A duel's result in plain words (issue 46), built from its state: the score share of B
against A, the decision and the chance that the call is wrong (alpha for "stronger",
beta for "not stronger"); two versions of one bot are named by their numbers alone."""

from __future__ import annotations

import pytest

from judge.duel.sprt import Pentanomial, Sprt
from judge.duel.state import DuelState
from tests.web.conftest import make_user, quick_bot
from tournaments.bots import bot_actions
from tournaments.models import Duel
from tournaments.web.duel_views import result_sentence, short_decision

pytestmark = pytest.mark.django_db


def state_after(counts: tuple[int, int, int, int, int], alpha: float, beta: float) -> DuelState:
    """The state after one look at these pairs' counts (the test's own decision)."""
    test, penta = Sprt(0.0, 20.0, alpha, beta, 4000), Pentanomial(counts)
    llr = test.llr(penta)
    return DuelState(test, penta, ((penta.games, llr),), test.decide(llr, penta.games), looks=1)


def test_the_sentence_says_the_call_its_score_and_its_chance_of_being_wrong() -> None:
    owner = make_user("ada")
    v1 = quick_bot(owner, "oceans11", "ada-bot")
    v2 = bot_actions.add_version(v1.bot, b"v2", "v2-digest", "accepted")
    duel = Duel(owner=owner, game="oceans11", a=v1, b=v2, status=Duel.Status.DECIDED)
    stronger = state_after((5, 20, 100, 60, 25), 0.05, 0.1)
    assert short_decision(stronger) == "stronger"
    share = round(100 * stronger.penta.mean())
    assert share > 50
    assert result_sentence(duel, stronger) == (
        f"v2 scores {share}% against v1: stronger, with a 5% chance that this call is wrong "
        f"(after {stronger.penta.games} games)."
    )
    weaker = state_after((25, 60, 100, 20, 5), 0.05, 0.1)
    assert short_decision(weaker) == "not stronger"
    assert result_sentence(duel, weaker).endswith(
        f"not stronger (not by 20 Elo or more), with a 10% chance that this call is wrong "
        f"(after {weaker.penta.games} games)."
    )
    running = Duel(owner=owner, game="oceans11", a=v1, b=v2, status=Duel.Status.RUNNING)
    early = state_after((1, 2, 3, 2, 1), 0.05, 0.05)
    assert result_sentence(running, early).endswith("no call yet; it plays on until it can tell.")
