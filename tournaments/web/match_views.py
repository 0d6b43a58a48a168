"""A match's page with the replay viewer, and the frames the viewer steps through."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from judge import games
from judge.engine import JSONDict
from tournaments import replay_store
from tournaments.api.permissions import owns_bot
from tournaments.models import Match, Replay, Seat
from tournaments.web import replays
from tournaments.web.bot_views import seats_without_secrets


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match; while it is queued or played, ``?part=status`` is its status alone (the
    page follows it and shows the result once it is over)."""
    if request.GET.get("part") == "status":
        match = get_object_or_404(Match.objects.only("id", "status"), pk=match_id)
        return render(request, "web/_match_status.html", status_context(match))
    match = get_object_or_404(
        Match.objects.select_related("tournament").prefetch_related(
            Prefetch("seats", queryset=seats_without_secrets())
        ),
        pk=match_id,
    )
    seats = list(match.seats.all())
    mine = [seat.index for seat in seats if owns_bot(request.user, seat.version.bot)]
    logs = dict(
        Seat.objects.filter(match=match, index__in=mine).values_list("index", "log") if mine else []
    )
    result = match.result or {}
    places = result.get("places", [])
    scores = result.get("scores", [])
    lines = [
        (seat, places[i] if i < len(places) else None, scores[i] if i < len(scores) else None)
        for i, seat in enumerate(seats)
    ]
    names = [seat.version.bot.name for seat in seats]
    context = {
        "match": match,
        "title": games.title(match.game),
        "lines": lines,
        "logs": [(seats[i], logs[i]) for i in sorted(logs)],
        "games": [
            f"game {i + 1}: " + " · ".join(names[bot] for bot in game["seating"])
            for i, game in enumerate(result.get("games", []))
        ],
        "names": names,
        "has_replay": match.status == Match.Status.DONE,
        **status_context(match),
    }
    return render(request, "web/match.html", context)


def status_context(match: Match) -> dict[str, object]:
    waiting = match.status in (Match.Status.QUEUED, Match.Status.RUNNING)
    return {"match": match, "waiting": waiting}


def replay_frames(request: HttpRequest, match_id: int) -> HttpResponse:
    """``?game=G&seat=S|all``: every step of game G as seat S saw it (all: every card).

    Only finished matches have a record; hidden cards are never sent while one runs.
    Frames are computed from the record once per game and seat, then served as kept
    (gzipped to clients that accept it).
    """
    replay = Replay.objects.filter(match_id=match_id, match__status=Match.Status.DONE).first()
    if replay is None:
        get_object_or_404(Match.objects.only("id"), pk=match_id)
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
