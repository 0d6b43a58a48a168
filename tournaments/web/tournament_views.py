"""Tournaments: the list, creating one, and its page (live progress, standings, matches)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any, cast
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Q
from django.db.models.fields.json import KeyTransform
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from judge import games
from judge.engine import Game
from judge.games import GAMES
from tournaments.api.permissions import may_change_tournament
from tournaments.bots import bot_actions
from tournaments.competitions import competition_actions
from tournaments.competitions.standings import tournament_table
from tournaments.competitions.time_control import is_standard
from tournaments.errors import ServiceError
from tournaments.guard import queryparams
from tournaments.models import Bot, BotVersion, Rating, Tournament
from tournaments.rating.model import tournament_fit
from tournaments.rating.model.tournament_fit import HeadToHead
from tournaments.rating.stored import field_view
from tournaments.web import estimate, text
from tournaments.web.bot_views import with_places
from tournaments.web.forms import TournamentForm
from tournaments.web.keyset import keyset_page, requested_key
from tournaments.web.links import link_for

TOURNAMENTS_PER_PAGE = 50
MATCHES_PER_PAGE = 100


def tournament_list(request: HttpRequest) -> HttpResponse:
    """Newest first, a keyset page at a time, filtered by game, status and "mine"."""
    chosen = list_filters(request)
    found = (
        Tournament.objects.filter(_filtered(request, chosen))
        .select_related("owner")
        .annotate(entrants=Count("participants"))
        .order_by("-id")
    )
    page = keyset_page(request, found, "id", TOURNAMENTS_PER_PAGE, descending=True)
    context = {
        "page": page,
        "filters": chosen,
        "page_query": urlencode(chosen) + "&" if chosen else "",
        "games": games.choices(),
        "statuses": [status for status in Tournament.Status if status != Tournament.Status.DRAFT],
    }
    return render(request, "web/tournaments.html", context)


def list_filters(request: HttpRequest) -> dict[str, str]:
    """The list's filters the request names that are real ones (others are ignored)."""
    chosen = {}
    if request.GET.get("game") in GAMES:
        chosen["game"] = request.GET["game"]
    if request.GET.get("status") in Tournament.Status.values:
        chosen["status"] = request.GET["status"]
    if request.GET.get("mine") == "1" and request.user.is_authenticated:
        chosen["mine"] = "1"
    return chosen


def _filtered(request: HttpRequest, chosen: dict[str, str]) -> Q:
    """Game and status are ranges of their (field, id) indexes; "mine" is the user's own
    tournaments and those their bots entered (a semi-join on the user's entries only)."""
    where = Q()
    if "game" in chosen:
        where &= Q(game=chosen["game"])
    if "status" in chosen:
        where &= Q(status=chosen["status"])
    if "mine" in chosen:
        entries = Tournament.participants.through.objects.filter(
            botversion__bot__owner_id=request.user.pk
        ).values("tournament_id")
        where &= Q(owner_id=request.user.pk) | Q(pk__in=entries)
    return where


def entrant_versions(game: str) -> list[BotVersion]:
    """The latest accepted, not retired version of every active uploaded bot of ``game``."""
    accepted = (
        BotVersion.objects.filter(
            bot__game=game,
            bot__retired=False,
            bot__house_policy="",
            status=BotVersion.Status.ACCEPTED,
            retired=False,
        )
        .select_related("bot__owner")
        .defer("code", "check_report")
        .order_by("bot__name", "bot_id", "-number")
    )
    latest: dict[int, BotVersion] = {}
    for version in accepted:
        latest.setdefault(version.bot_id, version)
    return list(latest.values())


@login_required
@require_http_methods(["GET", "POST"])
def tournament_create(request: HttpRequest) -> HttpResponse:
    """Step 1 picks the game (the bot of "Enter it in a tournament" implies it); step 2 is
    the form, with that bot ticked, a name ready and an estimate of the work it makes."""
    own = _own_bot(request)
    game = request.GET.get("game") or request.POST.get("game") or (own.game if own else "")
    if not game:
        return render(request, "web/tournament_game.html", {"game_list": game_list()})
    if game not in GAMES:
        raise Http404(f"no game {game!r}")
    versions = entrant_versions(game)
    if request.GET.get("part") == "estimate":  # the form's values as they are being typed
        form = TournamentForm(request.GET, game=game, versions=versions)
        return render(request, "web/_tournament_estimate.html", estimate_context(game, form))
    ticked = [f"v{v.pk}" for v in versions if own is not None and v.bot_id == own.pk]
    initial = {"name": default_name(game), "participants": ticked}
    form = TournamentForm(request.POST or None, game=game, versions=versions, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():  # refused at the start (a quota): no draft is left
                tournament = _create(request, game, form.cleaned_data, versions)
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            return redirect("web:tournament", tournament_id=tournament.pk)
    context = {
        "form": form,
        "game": game,
        "own": own,
        "option_schema": option_schema(game),
        **estimate_context(game, form),
    }
    return render(request, "web/tournament_create.html", context)


def game_list() -> list[tuple[str, str, type[Game]]]:
    """(name, title, engine class) of every game, for the first step."""
    return [(name, games.title(name), cls) for name, cls in GAMES.items()]


def _own_bot(request: HttpRequest) -> Bot | None:
    """The user's bot named by ``?bot=ID`` (from "Enter it in a tournament"), or None."""
    bot_id = requested_key(request, "bot")
    if bot_id is None:
        return None
    return Bot.objects.filter(pk=bot_id, owner_id=request.user.pk, retired=False).first()


def default_name(game: str) -> str:
    """A name to start from: the game and the day (the game's title, "round robin", the date)."""
    return f"{games.title(game)} round robin, {timezone.localdate():%Y-%m-%d}"


def estimate_context(game: str, form: TournamentForm) -> dict[str, Any]:
    """The estimate of what the form makes: from its values as sent when it is bound (the
    estimate endpoint reads them unchecked, each clamped to its field's bounds), else from
    its initial values."""
    data = form.data if form.is_bound else None

    def number(name: str) -> int:
        field = form.fields[name]
        low, high = _bounds(field)
        start = form.initial.get(name, field.initial)
        text = str(data.get(name, "")) if data is not None else str(start)
        typed = queryparams.WHOLE.fullmatch(text) and len(text) < 6  # as typed: partial is fine
        return min(max(int(text), low), high) if typed else start

    if isinstance(data, QueryDict):
        chosen = set(data.getlist("participants"))
        duplicate = data.get("duplicate") in ("on", "true", "1")
    else:
        chosen = set(form.initial.get("participants", []))
        duplicate = bool(form.fields["duplicate"].initial)
    offered = form.offered_participants()
    found = estimate.estimate(
        game,
        len(chosen & offered),
        number("table_size"),
        number("rounds"),
        number("games_per_pairing"),
        duplicate,
    )
    return {"estimate": found, "game_title": games.title(game)}


def _bounds(field: forms.Field) -> tuple[int, int]:
    """An integer field's bounds: its min and max, or its choices' lowest and highest."""
    if isinstance(field, forms.TypedChoiceField):
        values = [int(value) for value, _ in cast(list[tuple[int, str]], field.choices)]
        return min(values), max(values)
    return int(getattr(field, "min_value", 0) or 0), int(getattr(field, "max_value", 0) or 0)


def option_schema(game: str) -> list[dict[str, Any]]:
    """The game's options and their declared bounds, listed under the form."""
    return [option.to_json() for option in GAMES[game].option_schema]


def _create(
    request: HttpRequest, game: str, data: dict[str, Any], versions: list[BotVersion]
) -> Tournament:
    by_choice = {f"v{v.pk}": v for v in versions}
    entrants = [
        bot_actions.house_version(game, choice.split(":", 1)[1])
        if choice.startswith("house:")
        else by_choice[choice]
        for choice in data["participants"]
    ]
    time_control = {key: data[key] for key in ("startup_s", "move_s", "bank_s")}
    rated = is_standard(time_control, game)
    tournament = competition_actions.create_tournament(
        request.user,  # type: ignore[arg-type]
        data["name"],
        game,
        entrants,
        variant=data["variant"],
        table_size=data["table_size"],
        options=data["options"],
        games_per_pairing=data["games_per_pairing"],
        rounds=data["rounds"],
        duplicate=data["duplicate"],
        time_control=time_control,
        rated=rated,
        seed=secrets.randbits(62),
    )
    competition_actions.queue_start(tournament.pk)  # its schedule is written by a task
    unrated = "" if rated else " It is unrated: its clocks are not the standard ones."
    messages.success(
        request,
        f"Tournament {tournament.name!r} started: its schedule is being written, and its "
        f"matches are played as they come.{unrated}",
        "until-done",  # live.js takes it away once the tournament is over
    )
    return tournament


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament.objects.select_related("owner"), pk=tournament_id)
    context = live_context(request, tournament)
    context["may_change"] = may_change_tournament(request.user, tournament)
    if request.GET.get("part") == "live":
        return render(request, "web/_tournament_live.html", context)
    return render(request, "web/tournament.html", context)


def live_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """Progress, standings, head-to-head and one page of matches."""
    table = tournament_table(tournament)
    order = [row.participant for row in table.rows]
    head = [head_cells(table.head_to_head.get(a, {}), order) for a in order]
    matches = (
        tournament.matches.defer("result", "failure", "timings", "options", "limits")
        .annotate(places=KeyTransform("places", "result"))
        .order_by("number")
    )
    page = keyset_page(request, matches, "number", MATCHES_PER_PAGE, descending=False)
    page = replace(page, object_list=with_places(page.object_list))
    link = link_for("web:bot")
    overall = global_ratings({v.bot_id for v in table.versions.values()})
    rows = [
        standing_line(row, table.versions[row.participant], link, overall) for row in table.rows
    ]
    return {
        "tournament": tournament,
        "title": games.title(tournament.game),
        "rows": rows,
        "head": list(zip(rows, head, strict=True)),
        "page": page,
        "percent": round(100 * tournament.progress),
        "live": tournament.status in (Tournament.Status.SCHEDULING, Tournament.Status.RUNNING),
        "written": tournament.matches.count()
        if tournament.status == Tournament.Status.SCHEDULING
        else None,
    }


@dataclass(frozen=True)
class StandingLine:
    """One line of the standings, its figures and link written out here (the template
    only places strings: 64 lines of filters and url tags are polled every 1.5 s)."""

    row: tournament_fit.Standing[int]
    version: BotVersion
    link: str
    place: str
    name: str
    number: str
    points: str
    pairs: str
    elo: str
    low: str
    high: str
    overall: str  # the bot's global rating and its interval, "" if it has none
    overall_provisional: bool


def global_ratings(bot_ids: set[int]) -> dict[int, Rating]:
    """The global rating rows of these bots with their field view (one query), shown
    beside the fit as the leaderboard shows them."""
    fields = ["bot_id", "elo", "deviation", "units"]
    fields += ["field__elo", "field__deviation", "field__fitted_at"]
    ratings = Rating.objects.filter(bot_id__in=bot_ids).select_related("field").only(*fields)
    return {r.bot_id: r for r in ratings}


def standing_line(
    row: tournament_fit.Standing[int], version: BotVersion, link: Any, overall: dict[int, Rating]
) -> StandingLine:
    rating = overall.get(version.bot_id)
    return StandingLine(
        row=row,
        version=version,
        link=link(version.bot_id),
        place=str(row.place),
        name=version.bot.name,
        number=str(version.number),
        points=text.at_most_one_decimal(row.points),
        pairs=str(row.pairs),
        elo=text.whole(row.elo),
        low=text.whole(row.elo_low),
        high=text.whole(row.elo_high),
        overall=shown_rating(rating) if rating else "",
        overall_provisional=bool(rating and field_view.standing(rating).provisional),
    )


def shown_rating(rating: Rating) -> str:
    """A global rating as the pages write it: "1518 [1452, 1584]" (the field view's where
    there is one, rating.field_view.standing)."""
    shown = field_view.standing(rating)
    return f"{text.whole(shown.elo)} [{text.whole(shown.low)}, {text.whole(shown.high)}]"


def head_cells(scores: dict[int, HeadToHead], order: list[int]) -> SafeString:
    """One row of the head-to-head matrix, a cell per entrant. The matrix has a cell per
    pair of entrants (2,500 at 50): its rows are written here, as the template would
    take a second at that size; the cells hold only numbers and "·", so they are joined
    as they are (format_html's escaping of each cell cost 10 ms at 50 entrants)."""
    return mark_safe("".join([f'<td class="num">{_cell(scores.get(b))}</td>' for b in order]))


def _cell(score: HeadToHead | None) -> str:
    if score is None:
        return "·"
    return f"{text.at_most_one_decimal(score.points)}/{int(score.pairs)}"


@login_required
@require_POST
def tournament_cancel(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    if not may_change_tournament(request.user, tournament):
        raise Http404("only the tournament's owner may cancel it")
    try:
        competition_actions.cancel_tournament(tournament.pk)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Cancelled: the matches played stay recorded.")
    return redirect("web:tournament", tournament_id=tournament.pk)


@login_required
@require_POST
def tournament_resume(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Queue a cancelled tournament's matches again (the owner's or staff's), as the
    ``resume`` command does: the matches played stay, the rest are played."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    if not may_change_tournament(request.user, tournament):
        raise Http404("only the tournament's owner may resume it")
    try:
        competition_actions.resume_tournament(tournament.pk)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Resumed: its remaining matches are queued again.", "until-done")
    return redirect("web:tournament", tournament_id=tournament.pk)
