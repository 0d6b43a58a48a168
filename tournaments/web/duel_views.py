"""A duel's page (issue 35), its owner's alone: the result in a plain sentence ("v3 scores
56% against v2: stronger, with a 5% chance that this call is wrong"), the LLR chart
inline (scaled to the games played), B's score, the Elo estimate with its interval, the
latest rounds' matches and, while it runs, a cancel button; the live part refreshes
itself until it is over. A bot's owner starts one from the bot's page (issue 46): "is
this version stronger than that one?", through the same action as the API."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from judge import games
from judge.bots import policies
from judge.duel.chart import llr_svg
from judge.duel.sprt import Decision
from judge.duel.state import DuelState
from judge.engine import GameError
from tournaments.api.permissions import owns_bot
from tournaments.bots import bot_actions
from tournaments.competitions import duels
from tournaments.errors import ServiceError
from tournaments.guard.limits import hit, ident_of, rate_for
from tournaments.models import Bot, BotVersion, Duel, Match

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
    chart = llr_svg(state.history, test.lower, test.upper)  # to the games played, not the cap
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
        "sentence": result_sentence(duel, state),
        "alpha_percent": percent(test.alpha),
        "beta_percent": percent(test.beta),
        "short": short_decision(state),
    }


def version_label(version: BotVersion, other: BotVersion) -> str:
    """A version as the sentence names it: "v3" beside another version of the same bot,
    else with its bot's name ("house:random v1")."""
    if version.bot_id == other.bot_id:
        return f"v{version.number}"
    return f"{version.bot.name} v{version.number}"


def result_sentence(duel: Duel, state: DuelState) -> str:
    """The duel's answer in plain words, built from its state: B's score share against A,
    the decision, and the chance that the call is wrong (the test's alpha or beta)."""
    b, a = version_label(duel.b, duel.a), version_label(duel.a, duel.b)
    test, games_played = state.test, state.penta.games
    if not games_played:
        return f"Is {b} stronger than {a}? No game is over yet."
    scores = f"{b} scores {100 * state.penta.mean():.0f}% against {a}"
    after = f"after {games_played} games"
    if state.decision is Decision.H1:
        return (
            f"{scores}: stronger, with a {percent(test.alpha)} chance that this call is wrong "
            f"({after})."
        )
    if state.decision is Decision.H0:
        return (
            f"{scores}: not stronger (not by {test.elo1:g} Elo or more), with a "
            f"{percent(test.beta)} chance that this call is wrong ({after})."
        )
    if state.decision is Decision.CAP:
        return (
            f"{scores} {after}: no call, as the cap of {test.max_games} games came before "
            "the test could tell; the estimate below says how close they are."
        )
    if duel.status != Duel.Status.RUNNING:
        return f"{scores} {after}; the duel is {duel.status} and makes no call."
    return f"{scores} so far, {after}: no call yet; it plays on until it can tell."


def short_decision(state: DuelState) -> str:
    """The decision in a word or two, for the list of duels."""
    return {
        Decision.RUNNING: "no call yet",
        Decision.H1: "stronger",
        Decision.H0: "not stronger",
        Decision.CAP: "no call (cap reached)",
    }[state.decision]


def percent(rate: float) -> str:
    """An error rate as people say it: 0.05 is "5%"."""
    return f"{100 * rate:g}%"


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
    listed = [(duel, short_decision(DuelState.from_json(duel.state))) for duel in rows]
    return render(request, "web/duels.html", {"duels": listed})


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


#: The caps of games a duel from the web may choose (the API allows 20 to 4,000).
GAME_CAPS = (200, 400, 1000, 2000, 4000)


class DuelForm(forms.Form):
    """Is version B of the owner's bot stronger than A (another of its versions, or a
    house bot)? The game cap bounds how long it may take."""

    b = forms.ChoiceField(label="Is this version")
    a = forms.ChoiceField(label="stronger than")
    max_games = forms.TypedChoiceField(
        coerce=int,
        label="Games at most",
        choices=[(cap, f"{cap:,} games") for cap in GAME_CAPS],
        initial=400,
        help_text="It stops as soon as it can tell, often well before.",
    )

    def __init__(self, *args: Any, bot: Bot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bot = bot
        mine = [
            (f"v{v.pk}", f"v{v.number}")
            for v in bot.versions.filter(status=BotVersion.Status.ACCEPTED, retired=False)
            .defer("code", "check_report")
            .order_by("-number")
        ]
        house = [(f"house:{name}", f"house: {name}") for name in sorted(policies(bot.game))]
        cast_b = self.fields["b"]
        cast_a = self.fields["a"]
        assert isinstance(cast_b, forms.ChoiceField) and isinstance(cast_a, forms.ChoiceField)
        cast_b.choices = mine
        cast_a.choices = [("Its versions", mine[1:] + mine[:1]), ("House bots", house)]
        if len(mine) > 1:
            cast_a.initial = mine[1][0]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("a") and data.get("a") == data.get("b"):
            self.add_error("a", "choose a different version to compare with")
        return data

    def version(self, value: str) -> BotVersion:
        """The chosen version: one of this bot's, or a house bot's."""
        if value.startswith("house:"):
            return bot_actions.house_version(self.bot.game, value.split(":", 1)[1])
        return BotVersion.objects.select_related("bot").get(pk=int(value[1:]), bot=self.bot)


def duel_form(bot: Bot) -> DuelForm | None:
    """The bot page's form, for a bot with an accepted version to compare."""
    form = DuelForm(bot=bot)
    return form if form.fields["b"].choices else None  # type: ignore[attr-defined]


@login_required
@require_http_methods(["GET", "POST"])
def duel_new(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Start a duel of two versions of one's own bot (its owner only: 404 for others),
    by ``duels.create_duel``, the API's action, under the same request rate."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=bot_id)
    if not owns_bot(request.user, bot) or bot.retired:
        raise Http404("only the bot's owner starts its duels")
    form = DuelForm(request.POST or None, bot=bot)
    status = 200
    if request.method == "POST":
        status = 400
        wait = hit("quick_matches", ident_of(request, True), rate_for("quick_matches"))
        if wait:
            form.is_valid()
            form.add_error(None, f"Too many requests; try again in {math.ceil(wait)} s.")
            status = 429
        elif form.is_valid():
            data = form.cleaned_data
            chosen = duels.DuelRequest(
                b=form.version(data["b"]), a=form.version(data["a"]), max_games=data["max_games"]
            )
            try:
                duel = duels.create_duel(cast_user(request), chosen)
            except (ServiceError, GameError) as error:
                said = str(error)
                form.add_error(None, f"{said[:1].upper()}{said[1:]}.")
            else:
                messages.success(request, "Duel started: its first round is queued.")
                return redirect("web:duel", duel_id=duel.pk)
    context = {"bot": bot, "form": form, "title": games.title(bot.game)}
    return render(request, "web/duel_new.html", context, status=status)


def cast_user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user
