"""A person at a table: the form that seats them, the table page, and its small JSON API.

The table page reads two things, both by position so nothing is sent twice: the protocol
lines the person's seat was sent (``act`` carries the seat's observation and legal
actions, exactly as a bot gets them) and the match's public feed (what every seat sees
alike, move by move). The person answers with the index of a legal action for the open
question; the worker's channel takes it. Only the person who asked for the match sees its
table; anyone may follow the public feed of any match, a few seconds behind.
"""

from __future__ import annotations

import math
from typing import Any, cast

from django import forms
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from judge import games
from judge.bots import policies
from judge.engine import GameError
from judge.games import game_class
from tournaments.competitions import duels
from tournaments.errors import ServiceError
from tournaments.guard import boundedjson
from tournaments.guard.limits import hit, ident_of, rate_for
from tournaments.guard.quotas import QuotaExceeded
from tournaments.models import BotVersion, Match
from tournaments.play import human_match, human_seat, live_feed
from tournaments.web import table_drawing

EMPTY = ""
#: Bytes of a posted answer the table accepts.
MAX_BODY = 1_000


class SeatForm(forms.Form):
    """The variant, then one choice per other seat (house bots or the person's own bots)."""

    variant = forms.ChoiceField(label="Variant")

    def __init__(
        self, *args: Any, game: str, user: User, against: BotVersion | None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        engine = game_class(game)
        variant = cast(forms.ChoiceField, self.fields["variant"])
        variant.choices = [(name, name) for name in engine.variants]
        house = [(f"house:{name}", f"house: {name}") for name in sorted(policies(game))]
        own = [
            (f"v{v.pk}", f"{v.bot.name} v{v.number}")
            for v in BotVersion.objects.filter(
                bot__owner=user,
                bot__game=game,
                bot__retired=False,
                retired=False,
                status=BotVersion.Status.ACCEPTED,
            )
            .select_related("bot")
            .order_by("bot__name", "-number")[:20]
        ]
        choices: list[tuple[str, Any]] = [(EMPTY, "— nobody —"), ("House bots", house)]
        if own:
            choices.append(("Your bots", own))
        first = house[0][0]
        if against is not None:
            first = f"v{against.pk}"
            if first not in dict(own):
                label = f"{against.bot.name} v{against.number}"
                choices.insert(1, ("This bot", [(first, label)]))
        self.seat_names: list[str] = []
        for number in range(1, engine.max_players):
            name = f"opponent_{number}"
            self.fields[name] = forms.ChoiceField(
                required=False,
                label=f"Opponent {number}",
                choices=choices,
                initial=(first if number == 1 else house[0][0])
                if number < engine.default_players
                else EMPTY,
            )
            self.seat_names.append(name)
        if len(engine.variants) < 2:
            del self.fields["variant"]

    def opponents(self) -> list[BotVersion | str]:
        chosen: list[BotVersion | str] = []
        for name in self.seat_names:
            value = self.cleaned_data[name]
            if value.startswith("house:"):
                chosen.append(value.split(":", 1)[1])
            elif value.startswith("v"):
                found = BotVersion.objects.select_related("bot").filter(pk=int(value[1:])).first()
                if found is None:
                    raise ServiceError(f"no bot version {value[1:]}")
                chosen.append(found)
        return chosen


@login_required
@require_http_methods(["GET", "POST"])
def sit_down(request: HttpRequest, game: str) -> HttpResponse:
    """Choose the opponents of a table of ``game`` and sit at it."""
    if game not in dict(games.choices()):
        raise Http404(f"no game {game!r}")
    user = cast(User, request.user)
    against = _against(request, game)
    form = SeatForm(request.POST or None, game=game, user=user, against=against)
    live = human_match.live_match_of(user)
    status = 200
    if request.method == "POST":
        wait = hit("quick_matches", ident_of(request, True), rate_for("quick_matches"))
        if wait:
            form.is_valid()
            form.add_error(None, f"Too many matches; try again in {math.ceil(wait)} s.")
            return _form_page(request, game, form, live, 429)
        if form.is_valid():
            try:
                match = human_match.request_human_match(
                    user, game, form.opponents(), form.cleaned_data.get("variant", "")
                )
            except QuotaExceeded as error:
                form.add_error(None, str(error))
                return _form_page(request, game, form, live, 429)
            except human_match.TablesBusy as error:
                said = str(error)
                form.add_error(None, f"{said[:1].upper()}{said[1:]}.")
                busy = _form_page(request, game, form, live, 503)
                busy["Retry-After"] = str(error.retry_after)
                return busy
            except human_match.AtATable as error:
                said = str(error)
                form.add_error(None, f"{said[:1].upper()}{said[1:]}.")
                return _form_page(request, game, form, live, 409)
            except (ServiceError, GameError) as error:
                form.add_error(None, str(error))
            else:
                return redirect("web:table", match_id=match.pk)
        status = 400
    return _form_page(request, game, form, live, status)


def _against(request: HttpRequest, game: str) -> BotVersion | None:
    """The latest accepted version of the bot ``?against=BOT`` names, if it plays ``game``
    and is active (a bot page's "play against this bot")."""
    value = request.GET.get("against", "")
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        return None
    return (
        BotVersion.objects.filter(
            bot_id=int(value),
            bot__game=game,
            bot__retired=False,
            retired=False,
            status=BotVersion.Status.ACCEPTED,
        )
        .exclude(bot__house_policy=human_seat.PERSON_POLICY)
        .select_related("bot")
        .defer("code", "check_report")
        .order_by("-number")
        .first()
    )


def _form_page(
    request: HttpRequest, game: str, form: SeatForm, live: Match | None, status: int
) -> HttpResponse:
    context = {"game": game, "title": games.title(game), "form": form, "live": live}
    return render(request, "web/sit_down.html", context, status=status)


def _own_table(request: HttpRequest, match_id: int) -> tuple[Match, int]:
    """The match and the person's seat, if the requester is that person (404 otherwise)."""
    match = get_object_or_404(
        Match.objects.only("id", "game", "status", "requested_by_id", "duplicate", "games"),
        pk=match_id,
    )
    seat = human_match.person_seat_of(match)
    if (
        seat is None
        or not request.user.is_authenticated
        or match.requested_by_id != request.user.pk
    ):
        raise Http404("only the person at this table sees it")
    return match, seat


@login_required
@require_GET
def table(request: HttpRequest, match_id: int) -> HttpResponse:
    """The person's view of their table (the page polls ``table_state``)."""
    match, seat = _own_table(request, match_id)
    context = {
        "match": match,
        "seat": seat,
        "title": games.title(match.game),
        "state_url": reverse("web:table_state", args=[match.pk]),
        "answer_url": reverse("web:table_answer", args=[match.pk]),
        "match_url": reverse("web:match", args=[match.pk]),
        "drawing": table_drawing.drawing(match, table_drawing.bot_names(match), you=seat),
    }
    return render(request, "web/table.html", context)


def _position(request: HttpRequest, name: str) -> int:
    value = request.GET.get(name, "0")
    if not value.isascii() or not value.isdigit() or len(value) > 7:
        raise ServiceError(f"{name} must be a whole number from 0")
    return int(value)


@login_required
@require_GET
def table_state(request: HttpRequest, match_id: int) -> JsonResponse:
    """The seat's lines after ``lines``, the public feed after ``events`` (no delay: the
    person is at the table), and the match's status."""
    match, seat = _own_table(request, match_id)
    try:
        after_lines, after_events = _position(request, "lines"), _position(request, "events")
    except ServiceError as error:
        return JsonResponse({"error": str(error)}, status=400)
    lines = human_seat.person_lines(match.pk, after_lines)
    events, next_events = live_feed.read_feed(match.pk, after_events, 0.0)
    return JsonResponse(
        {
            "status": match.status,
            "seat": seat,
            "lines": lines,
            "next_lines": after_lines + len(lines),
            "events": events,
            "next_events": next_events,
        }
    )


@login_required
@require_POST
def table_answer(request: HttpRequest, match_id: int) -> JsonResponse:
    """The person's choice for the open question: ``{"game", "move", "action"}`` (an
    index into that question's legal list). Refused in words when it is not the open
    question or not a legal index."""
    match, _ = _own_table(request, match_id)
    if match.status != Match.Status.RUNNING:
        return JsonResponse({"error": f"the match is {match.status}, not running"}, status=409)
    if len(request.body) > MAX_BODY:
        return JsonResponse({"error": f"an answer is at most {MAX_BODY} bytes"}, status=413)
    try:
        posted = boundedjson.loads(request.body, max_depth=2)
        game, move, action = (int(posted[key]) for key in ("game", "move", "action"))
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"error": 'send {"game": G, "move": M, "action": INDEX}'}, status=400)
    question = _open_question(match.pk)
    if question is None or (question["game"], question["move"]) != (game, move):
        return JsonResponse({"error": "that question is no longer open"}, status=409)
    if not 0 <= action < len(question["legal"]):
        return JsonResponse(
            {"error": f"action must be 0 to {len(question['legal']) - 1}"}, status=400
        )
    human_seat.post_answer(match.pk, game, move, action)
    return JsonResponse({"ok": True})


@login_required
@require_POST
def table_leave(request: HttpRequest, match_id: int) -> JsonResponse:
    """The person leaves the table: still queued, it is cancelled; being played, the
    engine plays their seat to the end of the match. 409 once it is over."""
    match, _ = _own_table(request, match_id)
    try:
        done = human_match.leave_table(match)
    except ServiceError as error:
        return JsonResponse({"error": str(error)}, status=409)
    return JsonResponse({"ok": True, "done": done})


def _open_question(match_id: int) -> dict[str, Any] | None:
    """The last ``act`` the seat was sent, if no later line closed it."""
    for line in reversed(human_seat.person_lines(match_id, 0)):
        if line.get("type") == "act":
            return line
        if line.get("type") in ("game_over", "match_over"):
            return None
    return None


@require_GET
def live(request: HttpRequest, match_id: int) -> JsonResponse:
    """The public feed of a match for spectators, ``LIVE_DELAY_SECONDS`` behind (a
    private duel's rounds: its owner's alone)."""
    seen = Match.objects.filter(duels.visible_matches(request.user))
    match = get_object_or_404(seen.only("id", "status"), pk=match_id)
    try:
        after = _position(request, "after")
    except ServiceError as error:
        return JsonResponse({"error": str(error)}, status=400)
    if match.status in (Match.Status.QUEUED, Match.Status.RUNNING):
        live_feed.watch(match.pk)  # its worker publishes while someone follows it
    events, following = live_feed.read_feed(match.pk, after, live_feed.LIVE_DELAY_SECONDS)
    return JsonResponse(
        {"status": match.status, "events": events, "next": following},
        headers={"Cache-Control": "no-store"},
    )
