"""A match's page with the replay viewer, and the frames the viewer steps through."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from judge import games
from judge.engine import JSONDict
from tournaments.api.permissions import owns_bot
from tournaments.competitions import duels
from tournaments.errors import ServiceError
from tournaments.models import Match, Replay, Seat
from tournaments.play import queued_work, replay_store
from tournaments.play.lease import public_notes
from tournaments.web import replays, table_drawing
from tournaments.web.bot_views import seats_without_secrets
from tournaments.web.fault_lines import fault_line


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match; while it is queued or played, ``?part=status`` is its status alone (the
    page follows it and shows the result once it is over)."""
    seen = Match.objects.filter(duels.visible_matches(request.user))
    if request.GET.get("part") == "status":
        match = get_object_or_404(seen.only("id", "status"), pk=match_id)
        return render(request, "web/_match_status.html", status_context(match))
    match = get_object_or_404(
        seen.select_related("tournament").prefetch_related(
            Prefetch("seats", queryset=seats_without_secrets())
        ),
        pk=match_id,
    )
    seats = list(match.seats.all())
    mine = [seat.index for seat in seats if owns_bot(request.user, seat.version.bot)]
    logs = {
        index: (log, marks)
        for index, log, marks in (
            Seat.objects.filter(match=match, index__in=mine).values_list(
                "index", "log", "log_games"
            )
            if mine
            else []
        )
    }
    result = match.result or {}
    places = result.get("places", [])
    scores = result.get("scores", [])
    lines = [
        (seat, places[i] if i < len(places) else None, scores[i] if i < len(scores) else None)
        for i, seat in enumerate(seats)
    ]
    names = [seat.version.bot.name for seat in seats]
    played = result.get("games", [])
    context = {
        "match": match,
        "title": games.title(match.game),
        "lines": lines,
        "logs": [(seats[i], log_parts(logs[i][0], logs[i][1], i, played)) for i in sorted(logs)],
        "games": [
            f"game {i + 1}: " + " · ".join(names[bot] for bot in game["seating"])
            for i, game in enumerate(played)
        ],
        "faults": [fault_line(fault, names) for fault in match.faults or []],
        "names": names,  # the page's title names the bots
        "has_replay": match.status == Match.Status.DONE,
        # Who asked for a quick match may cancel it while no worker has begun it.
        "cancellable": match.status == Match.Status.QUEUED
        and match.tournament_id is None
        and match.ladder_id is None
        and request.user.is_authenticated
        and match.requested_by_id == request.user.pk,
        "notes": public_notes(match.failure),
        **status_context(match),
    }
    if context["waiting"]:  # the live view draws the table as the replay does
        bots = [f"{seat.version.bot.name} v{seat.version.number}" for seat in seats]
        context["drawing"] = table_drawing.drawing(match, bots)
    return render(request, "web/match.html", context)


@require_POST
@login_required
def cancel_quick_match(request: HttpRequest, match_id: int) -> HttpResponse:
    """The owner cancels a quick match that is still waiting (the match page's button)."""
    try:
        queued_work.cancel_quick_match(match_id, request.user)  # type: ignore[arg-type]
    except ServiceError as error:
        messages.error(request, str(error))
    return redirect("web:match", match_id=match_id)


def log_parts(
    log: str, marks: list[list[int]], index: int, played: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A seat's log cut by game (the referee notes where each part starts), each part with
    the bot's seat in that game (a duplicate match rotates the seats) and its replay link.

    A log without marks (one stored before they were kept) is one part for the match."""
    starts = [
        (game, min(max(start, 0), len(log)))
        for game, start in marks
        if isinstance(game, int) and 0 <= game < len(played)
    ]
    if not starts:
        return [{"label": "the whole match", "text": log, "anchor": ""}] if log else []
    ends = [start for _, start in starts[1:]] + [len(log)]
    parts = [{"label": "before the first game", "text": log[: starts[0][1]], "anchor": ""}]
    for (game, start), end in zip(starts, ends, strict=True):
        seating = played[game].get("seating", [])
        seat = f", seat {seating.index(index) + 1}" if index in seating else ""
        parts.append(
            {
                "label": f"game {game + 1}{seat}",
                "game": f"Game {game + 1}",
                "text": log[start:end],
                "anchor": f"#g{game + 1}s1",
            }
        )
    return [part for part in parts if part["text"]]


def status_context(match: Match) -> dict[str, object]:
    waiting = match.status in (Match.Status.QUEUED, Match.Status.RUNNING)
    return {"match": match, "waiting": waiting}


def replay_frames(request: HttpRequest, match_id: int) -> HttpResponse:
    """``?game=G&seat=S|all``: every step of game G as seat S saw it (all: every card).

    Only finished matches have a record; hidden cards are never sent while one runs.
    Frames are computed from the record once per game and seat, then served as kept
    (gzipped to clients that accept it).
    """
    replay = Replay.objects.filter(
        duels.visible_matches(request.user, "match__"),
        match_id=match_id,
        match__status=Match.Status.DONE,
    ).first()
    if replay is None:
        seen = Match.objects.filter(duels.visible_matches(request.user))
        get_object_or_404(seen.only("id"), pk=match_id)
        raise Http404("this match has no replay yet: it is shown once the match is over")
    try:
        game, seat = replays.checked_request(
            request.GET.get("game", "0"),
            request.GET.get("seat", "all"),
            replay.games,
            replay.players,
        )
        data = replay_store.cached_frames(replay, game, seat, partial(frames_with_bots, game, seat))
    except replays.ReplayError as error:
        return JsonResponse({"error": str(error)}, status=400)
    return replay_store.gzip_response(request, data)


def frames_with_bots(game: int, seat: str, record: dict[str, Any]) -> JSONDict:
    data = replays.frames(record, game, None if seat == "all" else int(seat))
    data["bots"] = [bot["name"] for bot in record["header"]["bots"]]
    return data
