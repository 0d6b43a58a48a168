"""Tournaments: the list, creating one, and its page (live progress, standings, matches)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count
from django.db.models.fields.json import KeyTransform
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from judge import games
from judge.games import GAMES
from tournaments import clocks, ratings, services
from tournaments.api.permissions import may_change_tournament
from tournaments.models import BotVersion, Rating, Tournament
from tournaments.ratings import HeadToHead
from tournaments.standings import tournament_table
from tournaments.web import text
from tournaments.web.bot_views import with_places
from tournaments.web.forms import TournamentForm
from tournaments.web.keyset import keyset_page
from tournaments.web.links import link_for

TOURNAMENTS_PER_PAGE = 50
MATCHES_PER_PAGE = 100


def tournament_list(request: HttpRequest) -> HttpResponse:
    found = (
        Tournament.objects.select_related("owner")
        .annotate(entrants=Count("participants"))
        .order_by("-id")
    )
    page = keyset_page(request, found, "id", TOURNAMENTS_PER_PAGE, descending=True)
    return render(request, "web/tournaments.html", {"page": page, "titles": dict(games.choices())})


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
    game = request.GET.get("game") or request.POST.get("game") or next(iter(GAMES))
    if game not in GAMES:
        raise Http404(f"no game {game!r}")
    versions = entrant_versions(game)
    form = TournamentForm(request.POST or None, game=game, versions=versions)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():  # refused at the start (a quota): no draft is left
                tournament = _create(request, game, form.cleaned_data, versions)
        except services.ServiceError as error:
            form.add_error(None, str(error))
        else:
            return redirect("web:tournament", tournament_id=tournament.pk)
    context = {
        "form": form,
        "game": game,
        "games": games.choices(),
        "option_schema": option_schema(game),
    }
    return render(request, "web/tournament_create.html", context)


def option_schema(game: str) -> list[dict[str, Any]]:
    """The game's options and their declared bounds, listed under the form."""
    return [option.to_json() for option in GAMES[game].option_schema]


def _create(
    request: HttpRequest, game: str, data: dict[str, Any], versions: list[BotVersion]
) -> Tournament:
    by_choice = {f"v{v.pk}": v for v in versions}
    entrants = [
        services.house_version(game, choice.split(":", 1)[1])
        if choice.startswith("house:")
        else by_choice[choice]
        for choice in data["participants"]
    ]
    time_control = {key: data[key] for key in ("startup_s", "move_s", "bank_s")}
    rated = clocks.is_standard(time_control, game)
    tournament = services.create_tournament(
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
    services.start_tournament(tournament.pk)
    unrated = "" if rated else " It is unrated: its clocks are not the standard ones."
    messages.success(request, f"Tournament {tournament.name!r} started.{unrated}")
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
        "live": tournament.status == Tournament.Status.RUNNING,
    }


@dataclass(frozen=True)
class StandingLine:
    """One line of the standings, its figures and link written out here (the template
    only places strings: 64 lines of filters and url tags are polled every 1.5 s)."""

    row: ratings.Standing[int]
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
    """The global rating rows of these bots (one query), shown beside the fit."""
    fields = ("bot_id", "elo", "deviation", "units")
    return {r.bot_id: r for r in Rating.objects.filter(bot_id__in=bot_ids).only(*fields)}


def standing_line(
    row: ratings.Standing[int], version: BotVersion, link: Any, overall: dict[int, Rating]
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
        overall_provisional=bool(rating and rating.provisional),
    )


def shown_rating(rating: Rating) -> str:
    """A global rating as the pages write it: "1518 [1452, 1584]"."""
    return f"{text.whole(rating.elo)} [{text.whole(rating.low)}, {text.whole(rating.high)}]"


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
        services.cancel_tournament(tournament.pk)
    except services.ServiceError as error:
        messages.error(request, str(error))
    return redirect("web:tournament", tournament_id=tournament.pk)
