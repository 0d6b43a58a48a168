"""A duel's page (issue 35), its owner's alone: the LLR chart inline, B's score, the Elo
estimate with its interval, the decision with its error rates, the latest rounds' matches
and, while it runs, a cancel button; the live part refreshes itself until it is over."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from judge import games
from judge.duel.chart import llr_svg
from judge.duel.state import DuelState
from tournaments.competitions import duels
from tournaments.errors import ServiceError
from tournaments.models import Duel, Match

#: The latest matches listed on the page (a duel may play up to 4,000 games).
RECENT_MATCHES = 12
#: Duels listed on /duels/, newest first (an owner has at most 3 running at once).
LISTED_DUELS = 50


def owned_duel(request: HttpRequest, duel_id: int) -> Duel:
    """The duel if the signed-in user owns it (or is staff), or a house duel (no owner:
    public); else 404, the same answer as for a duel that does not exist, so nobody
    learns whose duels there are."""
    duel = Duel.objects.select_related("a__bot", "b__bot", "panel__bot").filter(pk=duel_id).first()
    user = request.user
    if duel is None or (duel.owner_id not in (None, user.pk) and not user.is_staff):
        raise Http404("no such duel of yours")
    return duel


def duel_page(request: HttpRequest, duel_id: int) -> HttpResponse:
    duel = owned_duel(request, duel_id)
    context = duel_context(duel)
    mine = duel.owner_id is not None and duel.owner_id == request.user.pk
    context["may_cancel"] = context["running"] and (mine or request.user.is_staff)
    if request.GET.get("part") == "live":
        return render(request, "web/_duel_live.html", context)
    return render(request, "web/duel.html", context)


def duel_context(duel: Duel) -> dict[str, Any]:
    """What the page shows, read from the duel's stored state."""
    state = DuelState.from_json(duel.state)
    test = state.test
    chart = llr_svg(state.history, test.lower, test.upper, test.max_games)
    said, _, estimate = state.verdict().partition("\n")
    points = state.penta.mean() * state.penta.games
    return {
        "duel": duel,
        "title": games.title(duel.game),
        "state": duel.state,
        "test": test,
        "chart": mark_safe(chart),  # llr_svg escapes its only text (numbers, fixed words)
        "said": said,
        "estimate": estimate,
        "points": f"{points:g}",
        "percent": f"{100 * state.penta.mean():.1f}",
        "running": duel.status == Duel.Status.RUNNING,
        "matches": recent_matches(duel),
    }


def recent_matches(duel: Duel) -> QuerySet[Match]:
    return duel.matches.only("id", "duel_round", "duel_seating", "status", "games").order_by(
        "-duel_round", "duel_seating"
    )[:RECENT_MATCHES]


def duel_list(request: HttpRequest) -> HttpResponse:
    """Your duels and the house duels (the demo's), newest first."""
    user = request.user
    mine = Q(owner__isnull=True) | (Q(owner_id=user.pk) if user.is_authenticated else Q())
    rows = (
        Duel.objects.filter(mine)
        .select_related("a__bot", "b__bot")
        .defer("options")
        .order_by("-id")[:LISTED_DUELS]
    )
    return render(request, "web/duels.html", {"duels": rows})


@login_required
@require_POST
def duel_cancel(request: HttpRequest, duel_id: int) -> HttpResponse:
    duel = owned_duel(request, duel_id)
    try:
        duels.cancel_duel(duel.pk, request.user)  # type: ignore[arg-type]
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Duel cancelled; the rounds played stay recorded.")
    return redirect("web:duel", duel_id=duel.pk)
