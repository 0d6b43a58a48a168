"""The home page and the leaderboard of each game."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db.models import F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString

from judge import games as registry
from judge.games import GAMES
from tournaments.competitions import ladder
from tournaments.guard import queryparams
from tournaments.models import Bot, BotVersion, FieldPass, Rating, Tournament
from tournaments.rating.stored import field_view
from tournaments.web import charts, docs, stats, text
from tournaments.web.keyset import requested_key
from tournaments.web.links import link_for

LEADERBOARD_ROWS = 200


@dataclass(frozen=True)
class Row:
    """One line of a leaderboard, its figures and link written out in the view: at 200
    lines, ``floatformat``, localized integers and ``{% url %}`` in the template cost
    more than the page's queries (keep the template to placing these strings)."""

    place: int
    place_text: str
    rating: Rating
    trend: stats.Trend
    spark: SafeString
    link: str
    name: str
    owner: str  # "" for a house bot
    elo: str
    interval: str  # the 95% interval, "[low, high]"
    provisional: bool
    #: Whether the rating and interval are the bot's stored own (no field pass has seen it
    #: yet), not the field view's.
    own: bool
    matches: str
    record: str  # wins/draws/losses
    change: str  # of the trend, with its sign
    rising: bool
    #: Whether the bot is on its game's ladder now (its latest accepted version plays).
    on_ladder: bool = False


def home(request: HttpRequest) -> HttpResponse:
    recent = Tournament.objects.select_related("owner").order_by("-id")[:10]
    context = {
        "games": registry.choices(),
        "rules": set(docs.rules_games()),
        "tournaments": recent,
        "mine": your_bots(request),
    }
    return render(request, "web/home.html", context)


def your_bots(request: HttpRequest) -> list[Bot]:
    """The signed-in user's bots, each with its rating (``standing``: as the leaderboard
    shows it) and its latest version's status."""
    if not request.user.is_authenticated:
        return []
    latest = BotVersion.objects.filter(bot=OuterRef("pk")).order_by("-number")
    bots: list[Bot] = list(
        Bot.objects.filter(owner_id=request.user.pk)
        .select_related("rating__field")
        .annotate(
            latest_number=Subquery(latest.values("number")[:1]),
            latest_status=Subquery(latest.values("status")[:1]),
        )
        .order_by("game", "name")
    )
    for bot in bots:  # the rating as the leaderboard shows it
        rating = getattr(bot, "rating", None)
        bot.standing = rating and field_view.standing(rating)  # type: ignore[attr-defined]
    return bots


def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    """LEADERBOARD_ROWS rows from the top, or (``?after=BOT&elo=E&place=N``) from the row
    after that bot's (shown Elo E, place N).

    Ordered by the rating shown: the stored field view's where the bot has one, else its
    stored rating (rated since the last pass), so that the order never contradicts the
    ratings and intervals on the page; a scan of the game's rated bots (bounded by them)."""
    if game not in GAMES:
        raise Http404(f"no game {game!r}")
    ratings, start = board_range(request, game)
    found = list(
        ratings.select_related("bot__owner", "field").order_by("-shown", "bot_id")[
            : LEADERBOARD_ROWS + 1
        ]
    )
    more = found[LEADERBOARD_ROWS - 1] if len(found) > LEADERBOARD_ROWS else None
    found = found[:LEADERBOARD_ROWS]
    trends = stats.trends({rating.bot_id: rating.matches for rating in found})
    link = link_for("web:bot")
    on_ladder = ladder.summary(game)
    rows = [
        board_row(place, rating, trends.get(rating.bot_id, stats.Trend()), link(rating.bot_id))
        for place, rating in enumerate(found, start=start + 1)
    ]
    if on_ladder.playing:
        rows = [replace(row, on_ladder=row.rating.bot_id in on_ladder.bots) for row in rows]
    context = {
        "game": game,
        "title": registry.title(game),
        "rows": rows,
        "more": more
        and {"after": more.bot_id, "elo": repr(shown_elo(more)), "place": start + LEADERBOARD_ROWS},
        "has_rules": docs.rules_file(game) is not None,
        "ladder": on_ladder,
        "field_pass": FieldPass.objects.filter(game=game).values_list("ran_at", flat=True).first(),
    }
    return render(request, "web/leaderboard.html", context)


def board_row(place: int, rating: Rating, trend: stats.Trend, link: str) -> Row:
    shown = field_view.standing(rating)
    return Row(
        place=place,
        place_text=str(place),
        rating=rating,
        trend=trend,
        spark=charts.sparkline(trend.points, f"last ratings of {rating.bot.name}"),
        link=link,
        name=rating.bot.name,
        owner=rating.bot.owner.username if rating.bot.owner else "",
        elo=text.whole(shown.elo),
        interval=f"[{text.whole(shown.low)}, {text.whole(shown.high)}]",
        provisional=shown.provisional,
        own=shown.own,
        matches=str(rating.matches),
        record=f"{rating.wins}/{rating.draws}/{rating.losses}",
        change=text.signed_whole(trend.change),
        rising=trend.change >= 0,
    )


def board_range(request: HttpRequest, game: str) -> tuple[QuerySet[Rating], int]:
    """The game's listed ratings from the requested row on (each with ``shown``, the Elo
    it is listed by), and the place before it.

    The "more" link names the last row shown (its bot and shown Elo) and its place, so the
    next page starts below it, with no look-up of where that row is."""
    ratings = Rating.objects.filter(game=game, bot__retired=False).annotate(
        shown=Coalesce(F("field__elo"), F("elo"))
    )
    after, place = requested_key(request, "after"), requested_key(request, "place")
    elo = requested_elo(request)
    if after is None or elo is None:
        return ratings, 0
    below = Q(shown__lt=elo) | Q(shown=elo, bot_id__gt=after)
    return ratings.filter(below), place or 0


def shown_elo(rating: Rating) -> float:
    """The Elo a row of ``board_range`` is listed by (its ``shown`` annotation)."""
    return float(rating.shown)  # type: ignore[attr-defined]


def requested_elo(request: HttpRequest) -> float | None:
    """The ``elo`` of the query string as the float it was written from, or None."""
    return queryparams.optional_decimal(request.GET, "elo")
