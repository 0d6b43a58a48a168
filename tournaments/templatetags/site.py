"""Template filters the pages share: game and variant names for people, and dates that
say their time zone."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.urls import reverse
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString

from judge import games
from judge.games import GAMES
from tournaments.web.fault_lines import fault_line
from tournaments.web.wrapping import breakable_name

register = template.Library()


@register.filter
def error_count(form: Any) -> int:
    """How many errors a bound form shows: a field with two errors counts two (the summary
    above them must not say "1 thing to fix" over two items)."""
    return len(form.non_field_errors()) + sum(len(field.errors) for field in form)


@register.filter
def fault_anchor(played: dict[str, Any]) -> str:
    """The replay link's step of a check game's first fault ("#g1s5"; "" without one), so
    the report's replay opens where the bot failed, not at step 1."""
    faults = played.get("faults") or []
    return str(fault_line(faults[0], [])["anchor"]) if faults else ""


@register.filter
def breakable(name: str) -> SafeString:
    """A bot name that may wrap between its words only (tournaments.web.wrapping)."""
    return breakable_name(name)


@register.filter
def game_title(name: str) -> str:
    """The game's name as people read it (its registry name -> its title)."""
    return games.title(name)


@register.filter
def renderer_script(game: str) -> str:
    """Where a replay page loads the game's own renderer from (its package's replay.js,
    served by web.game_files), or "" when the generic renderer shows the game."""
    if game not in GAMES or games.renderer_file(game) is None:
        return ""
    return reverse("web:renderer_script", args=[game])


@register.filter
def variant_title(variant: str, game: str) -> str:
    """The variant's name as people read it, or "" for none."""
    cls = GAMES.get(game)
    if not variant or cls is None:
        return variant
    return cls.title_of(variant)


@register.filter
def when(moment: datetime | None) -> SafeString | str:
    """A ``<time>`` in the site's time zone that names it: "2026-12-01 08:15 UTC"."""
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}">{}</time>', local.isoformat(), date_format(local, "Y-m-d H:i T")
    )
