"""Files a game owns, served from its own package: its replay renderer script.

The renderer of a game is ``replay.js`` beside its engine (judge.games.renderer_file); the
match page loads it from here, on the site's own origin, so the Content Security Policy
(scripts from the site only) lets it run. The registry decides which file: a request can
name only a registered game.
"""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from judge import games


@require_safe
@cache_control(max_age=3600, public=True)
def renderer_script(request: HttpRequest, game: str) -> FileResponse:
    """The replay renderer of ``game``, or 404 when it has none (the generic one shows it)."""
    path = games.renderer_file(game) if game in games.GAMES else None
    if path is None:
        raise Http404("this game has no renderer of its own")
    return FileResponse(path.open("rb"), content_type="text/javascript; charset=utf-8")
