"""A quick match from a bot's page: its owner plays one of its versions against chosen
opponents (house bots, this bot's other versions, other people's bots of the game), unrated.

The same service call as the API's ``POST /api/matches/quick/`` (tournaments.api.actions),
so the same bounds, quotas and words: over the rate or the hourly quota the page answers
429 naming it, a bad choice 400 naming the choice. The match is queued for the workers
and the browser goes to its page, which follows it (queued, running, done) and then
shows its replay.
"""

from __future__ import annotations

import math
from typing import Any, cast

from django import forms
from django.contrib.auth.decorators import login_required
from django.db.models import F, OuterRef, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from judge import games
from judge.bots import policies
from judge.engine import GameError
from judge.games import game_class
from tournaments.api.actions import QUICK_MAX_GAMES, request_quick_match
from tournaments.api.permissions import owns_bot
from tournaments.errors import ServiceError
from tournaments.guard.limits import hit, ident_of, rate_for
from tournaments.guard.quotas import QuotaExceeded
from tournaments.models import Bot, BotVersion

#: Other people's bots offered as opponents (the strongest first); any other accepted
#: version can still be asked for by its number, as in the API.
QUICK_OPPONENTS = 100
#: This bot's own earlier versions offered as opponents.
OWN_VERSIONS = 10
EMPTY = ""


class QuickMatchForm(forms.Form):
    """The version to play, one choice per other seat (empty ones are left out), games.

    As in the API, the version sits first, then the chosen bot versions, then the house
    bots (a quick match is not duplicate: the seats stay)."""

    version = forms.TypedChoiceField(coerce=int, label="Your version")
    games = forms.IntegerField(
        min_value=1,
        max_value=QUICK_MAX_GAMES,
        initial=1,
        label="Games",
        help_text=f"1 to {QUICK_MAX_GAMES}; unrated, so nobody's rating moves.",
    )

    def __init__(self, *args: Any, bot: Bot, opponents: list[tuple[str, Any]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        engine = game_class(bot.game)
        versions = bot.versions.filter(retired=False).order_by("-number").only("id", "number")
        version = cast(forms.TypedChoiceField, self.fields["version"])
        version.choices = [(v.pk, f"v{v.number}") for v in versions]
        self.seat_names: list[str] = []
        first_house = f"house:{sorted(policies(bot.game))[0]}"
        for number in range(1, engine.max_players):
            name = f"opponent_{number}"
            self.fields[name] = forms.CharField(
                required=False,
                max_length=80,
                label=f"Opponent {number}",
                widget=forms.Select(choices=[(EMPTY, "— nobody —"), *opponents]),
                initial=first_house if number < engine.min_players else EMPTY,
            )
            self.seat_names.append(name)
        sizes = f" {games.title(bot.game)} seats {engine.min_players} to {engine.max_players}."
        self.fields["games"].help_text += sizes
        self.order_fields(["version", *self.seat_names, "games"])

    def chosen_seats(self) -> list[str]:
        return [self.cleaned_data[name] for name in self.seat_names if self.cleaned_data[name]]


def opponent_choices(bot: Bot) -> list[tuple[str, Any]]:
    """Grouped choices: house bots, this bot's other versions, the strongest other bots."""
    house = [(f"house:{name}", f"house: {name}") for name in sorted(policies(bot.game))]
    own = [
        (f"v{v.pk}", f"{bot.name} v{v.number}")
        for v in bot.versions.filter(status=BotVersion.Status.ACCEPTED, retired=False)
        .order_by("-number")
        .only("id", "number")[:OWN_VERSIONS]
    ]
    others = [
        (f"v{other.latest}", f"{other.name} v{other.latest_number} ({_owner(other)})")  # type: ignore[attr-defined]
        for other in other_bots(bot)
    ]
    groups = [("House bots", house), (f"{bot.name}'s versions", own), ("Other bots", others)]
    return [(label, items) for label, items in groups if items]


def _owner(bot: Bot) -> str:
    return bot.owner.username if bot.owner else "house"


def other_bots(bot: Bot) -> QuerySet[Bot]:
    """Up to QUICK_OPPONENTS other active bots of the game that people own (house bots
    are offered by name), each with its latest accepted version (``latest``,
    ``latest_number``)."""
    accepted = BotVersion.objects.filter(
        bot=OuterRef("pk"), status=BotVersion.Status.ACCEPTED, retired=False
    ).order_by("-number")
    return (
        Bot.objects.filter(game=bot.game, retired=False, owner__isnull=False)
        .exclude(pk=bot.pk)
        .annotate(
            latest=Subquery(accepted.values("pk")[:1]),
            latest_number=Subquery(accepted.values("number")[:1]),
        )
        .filter(latest__isnull=False)
        .select_related("owner")
        .order_by(F("rating__elo").desc(nulls_last=True), "-id")[:QUICK_OPPONENTS]
    )


@login_required
@require_http_methods(["GET", "POST"])
def quick_match(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=bot_id)
    if not owns_bot(request.user, bot):
        raise Http404("only the bot's owner may start a quick match with it")
    form = QuickMatchForm(request.POST or None, bot=bot, opponents=opponent_choices(bot))
    status = 200
    if request.method == "POST":
        wait = hit("quick_matches", ident_of(request, True), rate_for("quick_matches"))
        if wait:
            form.is_valid()
            form.add_error(None, _over_rate(wait))
            return _page(request, bot, form, 429, wait)
        if form.is_valid():
            try:
                match = _start(request, bot, form)
            except QuotaExceeded as error:
                form.add_error(None, str(error))
                return _page(request, bot, form, 429, error.retry_after)
            except (ServiceError, GameError) as error:
                form.add_error(None, str(error))
            else:
                return redirect("web:match", match_id=match.pk)
        status = 400
    return _page(request, bot, form, status)


def _over_rate(wait: float) -> str:
    rate = rate_for("quick_matches")
    minutes = max(1, math.ceil(wait / 60))
    return (
        f"Too many quick matches: at most {rate.requests} every {_period(rate.seconds)}; "
        f"try again in about {minutes} minute{'s' if minutes != 1 else ''}."
    )


def _period(seconds: int) -> str:
    names = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}
    return names.get(seconds, f"{seconds} s")


def _start(request: HttpRequest, bot: Bot, form: QuickMatchForm) -> Any:
    """The queued match; ServiceError (or QuotaExceeded) names what is wrong."""
    data = form.cleaned_data
    version = bot.versions.get(pk=data["version"])
    opponents: list[BotVersion] = []
    house: list[str] = []
    for choice in form.chosen_seats():
        if choice.startswith("house:"):
            house.append(choice.split(":", 1)[1])
        elif choice[:1] == "v" and choice[1:].isascii() and choice[1:].isdigit():
            opponents.append(_version(int(choice[1:])))
        else:
            raise ServiceError(
                f"{choice!r} is neither a house bot (house:NAME) nor a bot version (vNUMBER)"
            )
    return request_quick_match(
        version,
        opponents,
        house,
        data["games"],
        requested_by=request.user,  # type: ignore[arg-type]
    )


def _version(pk: int) -> BotVersion:
    found = BotVersion.objects.select_related("bot").defer("code", "check_report").filter(pk=pk)
    version = found.first()
    if version is None:
        raise ServiceError(f"no bot version {pk}")
    return version


def _page(
    request: HttpRequest, bot: Bot, form: QuickMatchForm, status: int, wait: float = 0
) -> HttpResponse:
    context = {"bot": bot, "form": form, "title": games.title(bot.game)}
    response = render(request, "web/quick_match.html", context, status=status)
    if wait:
        response["Retry-After"] = str(math.ceil(wait))
    return response
