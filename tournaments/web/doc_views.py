"""The documentation pages: /docs/ (the index and each doc), /rules/ and the starter kits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from judge import games
from sandbox.runtimes import RUNTIMES
from tournaments.web import docs


def docs_menu() -> list[tuple[str, str]]:
    """(label, address) of the pages a bot author reads, in reading order."""
    rules = [
        (f"Rules: {games.title(game)}", reverse("web:rules", args=[game]))
        for game in docs.rules_games()
    ]
    pages = [("Writing a bot", "bots"), ("The protocol", "protocol")]
    later = [("Ratings", "ratings"), ("Tournaments", "tournaments"), ("The API", "api")]
    return [
        ("All documentation", reverse("web:docs")),
        *((label, reverse("web:doc", args=[name])) for label, name in pages),
        ("Starter kits", reverse("web:starters")),
        *rules,
        *((label, reverse("web:doc", args=[name])) for label, name in later),
    ]


def _page(request: HttpRequest, path: Path | None, **context: Any) -> HttpResponse:
    if path is None:
        raise Http404("no such page of the documentation")
    doc = docs.render(path)
    context.update(doc=doc, menu=docs_menu(), here=request.path)
    return render(request, "web/doc.html", context)


def docs_index(request: HttpRequest) -> HttpResponse:
    return _page(request, docs.doc_file(docs.INDEX))


def doc(request: HttpRequest, name: str) -> HttpResponse:
    return _page(request, None if name == docs.INDEX else docs.doc_file(name))


def rules(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules for players: no source path shown (its tests are one link away)."""
    board = reverse("web:leaderboard", args=[game]) if game in games.GAMES else None
    return _page(request, docs.rules_file(game), board=board, for_players=True)


def rules_tests(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules with the tests that check them, for implementers."""
    return _page(request, docs.rules_tests_file(game))


def rules_index(request: HttpRequest) -> HttpResponse:
    listed = [
        (games.title(game), reverse("web:rules", args=[game]), games.GAMES.get(game))
        for game in docs.rules_games()
    ]
    context = {"listed": listed, "menu": docs_menu(), "here": request.path}
    return render(request, "web/rules_index.html", context)


def starters(request: HttpRequest) -> HttpResponse:
    """Each language's starter bot: its download and its code."""
    kits = [
        (runtime, (Path(settings.BASE_DIR) / "starters" / name / runtime.entry).read_text())
        for name, runtime in RUNTIMES.items()
    ]
    context = {"kits": kits, "menu": docs_menu(), "here": request.path}
    return render(request, "web/starters.html", context)
