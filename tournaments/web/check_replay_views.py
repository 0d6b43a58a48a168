"""The replay of one game of a version's check, for its owner: the check's report links
each of its games here, so an author sees the very deal where the bot failed, step by
step, in the match page's viewer (``_replay_viewer.html``, ``static/web/replay.js``).
The record is the report's (``play.version_checks``); nobody but the owner sees it."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from judge import games
from tournaments.api.permissions import owns_bot
from tournaments.models import BotVersion
from tournaments.web import replays
from tournaments.web.fault_lines import fault_line


def check_replay(request: HttpRequest, version_id: int, number: int) -> HttpResponse:
    """Check game ``number`` (from 0) of the version, in the replay viewer; with
    ``?download=1`` its record as a file."""
    version, played = _check_game(request, version_id, number)
    if request.GET.get("download"):
        answer = JsonResponse(played["record"])
        answer["Content-Disposition"] = f'attachment; filename="check-{version_id}-{number}.json"'
        return answer
    context = {
        "version": version,
        "bot": version.bot,
        "title": games.title(version.bot.game),
        "played": played,
        "number": number + 1,
        "games": [f"game {i + 1}" for i in range(len(played["record"]["games"]))],
        "frames_url": reverse("web:check_frames", args=[version_id, number]),
        # Each fault's line, linked to its step in the viewer below.
        "fault_links": [
            (line, fault_line(fault, [])["anchor"])
            for line, fault in zip(
                played.get("fault_lines") or [], played.get("faults") or [], strict=False
            )
        ],
    }
    return render(request, "web/check_replay.html", context)


def check_frames(request: HttpRequest, version_id: int, number: int) -> HttpResponse:
    """``?game=G&seat=S|all``: the steps of that check game, as the viewer asks."""
    _version, played = _check_game(request, version_id, number)
    record = played["record"]
    try:
        game, seat = replays.checked_request(
            request.GET.get("game", "0"),
            request.GET.get("seat", "all"),
            len(record["games"]),
            record["header"]["players"],
        )
    except replays.ReplayError as error:
        return JsonResponse({"error": str(error)}, status=400)
    data = replays.frames(record, game, None if seat == "all" else int(seat))
    data["bots"] = [bot["name"] for bot in record["header"]["bots"]]
    return JsonResponse(data)


def _check_game(
    request: HttpRequest, version_id: int, number: int
) -> tuple[BotVersion, dict[str, Any]]:
    """The version and its check game ``number``, for the owner only (404 for anyone
    else, and for a game with no record: a check from before records were kept)."""
    version = get_object_or_404(
        BotVersion.objects.select_related("bot__owner").defer("code"), pk=version_id
    )
    if not owns_bot(request.user, version.bot):
        raise Http404("no such check game")
    matches = (version.check_report or {}).get("matches") or []
    if not 0 <= number < len(matches) or not matches[number].get("record"):
        raise Http404("this check game has no replay (a check from before replays were kept)")
    return version, matches[number]
