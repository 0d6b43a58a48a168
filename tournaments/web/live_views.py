"""Now playing: the ladder's matches of a game being played at this moment, each linking
to its page, which follows it live (tournaments.play.live_feed: public cards only, a few
seconds behind). Ladder matches are public; quick matches and people's tables are not
listed (their pages can still be followed by whoever has the link)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from judge import games
from tournaments.models import Match, Seat

#: Matches listed at most.
SHOWN = 30


@require_GET
def now_playing(request: HttpRequest, game: str) -> HttpResponse:
    """The page, or with ``?part=list`` the list alone (live.js refreshes it)."""
    if game not in dict(games.choices()):
        raise Http404(f"no game {game!r}")
    running = list(
        Match.objects.filter(game=game, ladder__isnull=False, status=Match.Status.RUNNING)
        .order_by("-started_at", "-pk")
        .only("id", "started_at")[:SHOWN]
    )
    names: dict[int, list[str]] = {match.pk: [] for match in running}
    seats = Seat.objects.filter(match__in=running).select_related("bot").order_by("index")
    for seat in seats.only("match_id", "index", "bot__name"):
        names[seat.match_id].append(seat.bot.name)
    context = {
        "game": game,
        "title": games.title(game),
        "matches": [(match, names[match.pk]) for match in running],
    }
    template = (
        "web/_now_playing.html" if request.GET.get("part") == "list" else "web/now_playing.html"
    )
    return render(request, template, context)
