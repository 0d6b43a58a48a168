"""The documentation on the site, rendered from docs/ (the one source of truth).

``docs/NAME.md`` is served at /docs/NAME/ (``docs/README.md``, the index, at /docs/), the
rules of each game ``docs/rules/GAME.md`` at /rules/GAME/, and the starter kits of
``starters/`` at /docs/starters/. Markdown goes through markdown-it-py (CommonMark and
tables) with raw HTML off, so whatever a page holds is escaped, never passed through, and
its link checker refuses ``javascript:`` and the like. Links between the documents are
rewritten to the site's addresses; links into the rest of the repository (source files,
the seeds) are not on the site, so they keep their words and lose the link. A rendered
page is kept in memory, keyed by its file's modification time: a request reads one stat.
"""

from __future__ import annotations

import functools
import itertools
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin

from judge import games

#: The file names a page may have (anything else is not a page: no path tricks).
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,40}")
#: A code span of cards written with their suits (`9♥ 5♦ 4♣`), drawn as small cards.
CARD_SPAN = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣](?: (?:10|[2-9JQKA])[♠♥♦♣])*")
SUITS = {"♠": ("s", "spades"), "♥": ("h", "hearts"), "♦": ("d", "diamonds"), "♣": ("c", "clubs")}
RANKS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
INDEX = "README"


@dataclass(frozen=True)
class Doc:
    """A rendered page: its title (its first heading), its HTML, and its source file."""

    title: str
    html: SafeString
    source: str


def docs_folder() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def doc_file(name: str) -> Path | None:
    """docs/NAME.md (README for the index) if it is one of the pages, else None."""
    if name != INDEX and not NAME.fullmatch(name):
        return None
    path = docs_folder() / f"{name}.md"
    return path if path.is_file() else None


def rules_file(game: str) -> Path | None:
    """The rules page of a registered game (the registry finds it), else None."""
    return games.rules_file(game) if game in games.GAMES else None


def rules_tests_file(game: str) -> Path | None:
    """The rules of a registered game with the tests that check them, else None."""
    return games.rules_tests_file(game) if game in games.GAMES else None


def rules_games() -> list[str]:
    """The registered games that have a rules page, in the registry's order."""
    return [game for game in games.GAMES if games.rules_file(game) is not None]


def render(path: Path) -> Doc:
    """The page of ``path`` (a file of docs/), rendered once per version of the file."""
    return _render(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _render(path: str, _mtime_ns: int) -> Doc:
    source = Path(path)
    folder, shown = _place(source)
    text = source.read_text(encoding="utf-8")
    env = {"folder": folder}
    tokens = _markdown().parse(text, env)
    html = _markdown().renderer.render(tokens, _markdown().options, env)
    return Doc(_title(tokens), mark_safe(html), shown)


def _place(source: Path) -> tuple[str, str]:
    """The page's folder inside docs/ (for its relative links) and its path as shown; a
    page a game keeps in its own package links as if it were in docs/rules/."""
    try:
        inside = source.relative_to(docs_folder())
    except ValueError:
        return "rules", source.name
    folder = inside.parent.as_posix()
    return ("" if folder == "." else folder), f"docs/{inside.as_posix()}"


@functools.cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.use(anchors_plugin, min_level=1, max_level=4)
    md.core.ruler.push("site_links", _site_links)
    renderer = cast(RendererHTML, md.renderer)
    for rule in ("fence", "code_block"):
        md.add_render_rule(rule, _focusable(renderer.rules[rule]))
    md.add_render_rule("code_inline", _cards_or_code(renderer.rules["code_inline"]))
    return md


def _focusable(rule: Any) -> Any:
    """A code block's renderer whose <pre> takes the keyboard's focus: a long line scrolls
    it sideways, and a scrolling box must be reachable without a mouse."""

    def render(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
        html: str = rule(tokens, idx, options, env)
        return html.replace("<pre>", '<pre tabindex="0">', 1)

    return render


def _cards_or_code(rule: Any) -> Any:
    """A code span's renderer that draws a span of cards (`A♠ 10♥`) as the replay draws
    them, each an image named for a screen reader ("ace of spades"); other spans are code."""

    def render(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
        text = tokens[idx].content
        if not CARD_SPAN.fullmatch(text):
            return str(rule(tokens, idx, options, env))
        return '<span class="cards small">' + "".join(map(_card, text.split())) + "</span>"

    return render


def _card(text: str) -> str:
    """One card of a matched span (its characters are only ranks and suits: no escaping)."""
    rank, suit = text[:-1], text[-1]
    letter, name = SUITS[suit]
    label = f"{RANKS.get(rank, rank)} of {name}"
    return (
        f'<span class="card suit-{letter}" role="img" aria-label="{label}">'
        f'<span class="rank">{rank}</span><span class="suit">{suit}</span></span>'
    )


def _title(tokens: list[Token]) -> str:
    for opening, inline in itertools.pairwise(tokens):
        if opening.type == "heading_open" and opening.tag == "h1":
            return inline.content
    return "Documentation"


def _site_links(state: StateCore) -> None:
    """Point links between docs at the site; unlink what the site does not serve."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        kept: list[Token] = []
        links: list[bool] = []  # for each open link: is it kept?
        for token in block.children:
            if token.type == "link_open":
                target = site_address(str(token.attrGet("href") or ""), state.env["folder"])
                links.append(target is not None)
                if target is None:
                    continue
                token.attrSet("href", target)
            elif token.type == "link_close" and links and not links.pop():
                continue
            kept.append(token)
        block.children = kept


def site_address(href: str, folder: str = "") -> str | None:
    """Where a link of a doc in docs/FOLDER goes on the site: the same address for one
    that leaves the site or stays on the page, the site's page for a doc or a starter,
    and None for a file of the repository that the site does not serve."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("#", "/")):
        return href
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    path = posixpath.normpath(posixpath.join(folder, parts.path)) if parts.path else ""
    found = _page_of(path)
    return None if found is None else found + fragment


def _page_of(path: str) -> str | None:
    """The site's address of a path relative to docs/ ("rules/GAME.md", "../starters")."""
    head, _, tail = path.partition("/")
    if path == "README.md":
        return reverse("web:docs")
    if "/" not in path and path.endswith(".md") and doc_file(path[:-3]):
        return reverse("web:doc", args=[path[:-3]])
    if path == "rules":
        return reverse("web:rules_index")
    if head == "rules" and tail.endswith(".md") and rules_file(tail[:-3]):
        return reverse("web:rules", args=[tail[:-3]])
    tested = re.fullmatch(r"rules/tests/([a-z0-9-]+)\.md", path)
    if tested and rules_tests_file(tested.group(1)):
        return reverse("web:rules_tests", args=[tested.group(1)])
    if path == "../starters":
        return reverse("web:starters")
    starter = re.fullmatch(r"\.\./starters/([a-z]+)(/[^/]+)?", path)
    if starter:
        return reverse("web:starter", args=[starter.group(1)])
    return None
