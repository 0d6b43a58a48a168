"""A bot's page, uploading a bot or a version, and a version's check.

Code, check reports and logs are its owner's alone: the pages ask
``tournaments.api.permissions`` (the same helpers as the API) and never even load them
for anyone else.
"""

from __future__ import annotations

import io
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.fields.json import KeyTransform
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import content_disposition_header
from django.utils.safestring import SafeString
from django.views.decorators.http import require_http_methods, require_POST

from judge import games
from sandbox.runtimes import RUNTIMES
from tournaments.api.actions import upload_version
from tournaments.api.permissions import may_change_bot, owns_bot
from tournaments.bots import bot_actions
from tournaments.bots.uploads import Limits, UploadError, read_upload
from tournaments.competitions import duels, ladder, ladder_faults
from tournaments.errors import ServiceError
from tournaments.guard.limits import limited
from tournaments.models import Bot, BotVersion, Match, Seat
from tournaments.play import dispatch
from tournaments.rating.model.skill import START_DEVIATION, interval
from tournaments.rating.stored import field_view
from tournaments.web import charts, docs, duel_views, head_to_head, stats
from tournaments.web.fault_lines import fault_line
from tournaments.web.forms import UploadForm
from tournaments.web.keyset import requested_key
from tournaments.web.links import link_for
from tournaments.web.wrapping import breakable_name

RECENT_MATCHES = 20
#: Points of the rating chart (samples spread over the whole history).
CHART_POINTS = 200
SHOWN_CODE_BYTES = 200_000


def seats_without_secrets() -> QuerySet[Seat]:
    """Seats with their bots, leaving logs and code in the database."""
    return Seat.objects.select_related("version__bot__owner").defer(
        "log", "log_games", "version__code", "version__check_report"
    )


def recent_matches(
    bot: Bot, viewer: User | AnonymousUser, before: int | None = None
) -> tuple[list[Match], int | None]:
    """RECENT_MATCHES of the bot's matches that ``viewer`` may see (not another person's
    duel), newest first (those before match ``before`` when given), and the key of the
    next page's ("more"), or None when there are no more. The bot's seats are one range of
    the (bot, match) index at any depth."""
    # Each seat's match checked by its key (a subquery per seat): the walk of the index
    # stops at the page; as a join the planner could walk the match table from its newest
    # match down to the bot's (issue 47).
    shown = Match.objects.filter(duels.visible_matches(viewer), pk=OuterRef("match_id"))
    seats = Seat.objects.filter(bot=bot).annotate(shown=Subquery(shown.values("pk")[:1]))
    seats = seats.filter(shown__isnull=False)
    if before is not None:
        seats = seats.filter(match_id__lt=before)
    ids = list(
        seats.order_by("-match_id")
        .values_list("match_id", flat=True)
        .distinct()[: RECENT_MATCHES + 1]
    )
    more = ids[RECENT_MATCHES - 1] if len(ids) > RECENT_MATCHES else None
    return listed_matches(ids[:RECENT_MATCHES]), more


def listed_matches(ids: list[int]) -> list[Match]:
    """These matches as lists show them, newest first, each with its seats' places."""
    found = (
        Match.objects.filter(pk__in=ids)
        .defer("result", "failure", "timings", "options", "time_control", "limits")
        .annotate(places=KeyTransform("places", "result"))
        .select_related("tournament")
        .order_by("-id")
    )
    return with_places(found)


#: A listed match's seat: its index, its bot's id and name.
SeatLine = tuple[int, int, str]


def with_places(matches: Iterable[Match]) -> list[Match]:
    """The matches, each with ``seats_html``: its seats in seat order, written out (each
    bot linked, with its place); and ``link``, the match page's address.

    The seats come in one query as plain rows (bot id and name), not as seat, version and
    bot objects; the links come from one ``reverse`` per kind of page. A list of 100
    six-seat matches is 600 seats and 700 links: as objects, ``{% url %}`` tags and a loop
    in the template they took longer than every query of the page (_match_rows.html only
    places these strings). The matches' places come from their result, or from a
    ``places`` annotation (result__places) when a list defers the whole result.
    """
    listed = list(matches)
    bot_link, match_link = link_for("web:bot"), link_for("web:match")
    seats: dict[int, list[SeatLine]] = defaultdict(list)
    if listed:
        for match_id, *line in (
            Seat.objects.filter(match__in=[match.pk for match in listed])
            .order_by("match_id", "index")
            .values_list("match_id", "index", "version__bot_id", "version__bot__name")
        ):
            seats[match_id].append(tuple(line))  # type: ignore[arg-type]
    for match in listed:
        places = getattr(match, "places", None)
        if places is None:
            places = (match.result or {}).get("places", [])
        match.seats_html = seats_html(seats[match.pk], places, bot_link)  # type: ignore[attr-defined]
        match.link = match_link(match.pk)  # type: ignore[attr-defined]
    return listed


def seats_html(
    lines: list[SeatLine], places: list[int], bot_link: Callable[[int], str]
) -> SafeString:
    """ "<a href=BOT>name</a> <span class="place p1">1</span>, ..." for one match."""
    return format_html_join(
        ", ",
        '<a class="bot-name" href="{}">{}</a>{}',
        (
            (
                bot_link(bot_id),
                breakable_name(name),
                place_html(places[index] if index < len(places) else None),
            )
            for index, bot_id, name in lines
        ),
    )


def place_html(place: int | None) -> SafeString:
    if not place:
        return SafeString("")
    return format_html(' <span class="place p{0}">{0}</span>', place)


def bot_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = get_object_or_404(Bot.objects.select_related("owner", "rating__field"), pk=bot_id)
    mine = owns_bot(request.user, bot)
    versions = bot.versions.order_by("-number")
    if not mine:
        versions = versions.defer("code", "check_report")
    history, days, deviations = rating_points(bot)
    before = requested_key(request, "matches_before")
    matches, more = recent_matches(bot, request.user, before)
    listed = list(versions)
    latest = None if bot.retired else ladder.latest_accepted(bot)
    context: dict[str, Any] = {
        "bot": bot,
        "title": games.title(bot.game),
        "mine": mine,
        "versions": listed,
        "rating": getattr(bot, "rating", None),
        "standing": standing_of(bot),
        "new_version": field_view.new_version(bot.pk) if getattr(bot, "rating", None) else None,
        "chart": charts.rating_chart(
            history,
            f"rating history of {bot.name}",
            days,
            rating_interval(bot),
            [
                None if d is None else interval(v, d)
                for v, d in zip(history, deviations, strict=True)
            ],
        ),
        "opponents": head_to_head.opponents(bot),
        "matches": matches,
        "ladder_latest": latest,
        "ladder_version": None if latest is None or latest.off_ladder_at else latest,
        "ladder": ladder.summary(bot.game, with_bots=False),
        "more_matches": more,
        "matches_before": before,
    }
    if may_change_bot(request.user, bot):
        context["fault_notice"] = fault_notice(latest)
    if mine:
        context["logs"] = list(
            Seat.objects.filter(bot=bot, match__in=[m.pk for m in matches])
            .exclude(log="")
            .order_by("-match_id")
            .values("match_id", "index", "log")
        )
        context["code"] = code_files(listed[0]) if listed else []
        context["duel_form"] = None if bot.retired else duel_views.duel_form(bot)  # issue 46
    return render(request, "web/bot.html", context)


def fault_notice(version: BotVersion | None) -> dict[str, Any] | None:
    """For its owner (or staff): the faults of the bot's latest version (``version``) in
    its last rated matches, the last fault with its link to the move and the end of its
    stderr, and whether the ladder took the version off for them (None: no recent fault)."""
    if version is None:
        return None
    record = ladder_faults.recent_faults(version)
    if record.last is None or record.match_id is None or record.seat is None:
        return None
    names = [version.bot.name] * (record.seat + 1)
    return {
        "version": version,
        "record": record,
        "fault": fault_line(record.last, names),
        "match_id": record.match_id,
        "tail": ladder_faults.stderr_tail(record.match_id, record.seat),
        "off": version.off_ladder_at is not None,
    }


@require_POST
@login_required
def put_back_on_ladder(request: HttpRequest, version_id: int) -> HttpResponse:
    """The owner puts a version the ladder took off for its faults back on it."""
    version = get_object_or_404(BotVersion.objects.select_related("bot"), pk=version_id)
    if not may_change_bot(request.user, version.bot):
        raise Http404("no such version")
    try:
        ladder_faults.put_back(version)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"v{version.number} is back on the ladder.")
    return redirect(reverse("web:bot", args=[version.bot_id]) + "#ladder")


def standing_of(bot: Bot) -> field_view.Standing | None:
    """The rating the page heads with: the one rating (``field_view.standing``), as the
    leaderboard, the API and the ladder read it (None: not rated)."""
    rating = getattr(bot, "rating", None)
    return None if rating is None else field_view.standing(rating)


def rating_interval(bot: Bot) -> tuple[float, float] | None:
    """The bot's present 95% interval, for the chart's band (None: not rated)."""
    rating = getattr(bot, "rating", None)
    return None if rating is None else (rating.low, rating.high)


def rating_samples(bot: Bot) -> list[float]:
    """The bot's rating before its first rated match, then after at most CHART_POINTS of
    them, evenly spread over its whole history (a few index lookups, however long)."""
    return rating_points(bot)[0]


def rating_points(bot: Bot) -> tuple[list[float], list[str], list[float | None]]:
    """``rating_samples``, the date of each (the first one: its first rated match's) and
    its deviation (None where the history did not keep it; the first: the start's)."""
    rating = getattr(bot, "rating", None)
    if rating is None or rating.matches == 0:
        return [], [], []
    numbers = stats.sample_numbers(rating.matches, CHART_POINTS)
    changes = stats.chart_samples(bot.pk, numbers)
    if not changes:
        return [], [], []
    days = [timezone.localtime(moment).strftime("%Y-%m-%d") for _, _, moment, _ in changes]
    values = [changes[0][0], *(after for _, after, _, _ in changes)]
    return values, [days[0], *days], [START_DEVIATION, *(d for *_, d in changes)]


def code_files(version: BotVersion) -> list[tuple[str, str]]:
    """The version's files as text (large or binary files summarised)."""
    files = []
    try:
        archive = zipfile.ZipFile(io.BytesIO(bytes(version.code)))
    except zipfile.BadZipFile:
        return []
    with archive:
        for info in archive.infolist():
            if info.file_size > SHOWN_CODE_BYTES:
                files.append((info.filename, f"({info.file_size} bytes, too large to show)"))
                continue
            data = archive.read(info)
            try:
                files.append((info.filename, data.decode("utf-8")))
            except UnicodeDecodeError:
                files.append((info.filename, f"({len(data)} bytes of binary data)"))
    return files


@login_required
@require_http_methods(["GET", "POST"])
@limited("uploads")
def upload(request: HttpRequest, bot_id: int | None = None) -> HttpResponse:
    """Upload a new bot, or (with ``bot_id``) a new version of one of the user's bots."""
    bot = None
    if bot_id is not None:
        bot = get_object_or_404(Bot, pk=bot_id)
        if not owns_bot(request.user, bot):
            raise Http404("only the bot's owner may upload its versions")
    form = UploadForm(request.POST or None, request.FILES or None, bot=bot)
    if request.method == "POST" and form.is_valid():
        version = _store_upload(request, form, bot)
        if version is not None:
            return redirect("web:version", version_id=version.pk)
    rules = [(game, games.title(game)) for game in docs.rules_games()]
    context = {
        "form": form,
        "bot": bot,
        "runtimes": RUNTIMES.values(),
        "rules": rules,
        "missing": dispatch.languages_missing(),  # what no live worker can run now
    }
    return render(request, "web/upload.html", context)


def starter(request: HttpRequest, language: str) -> HttpResponse:
    """The starter bot of ``language`` (starters/LANGUAGE/ENTRY), as a download: a bot that
    parses the protocol and plays a random legal action in any game, to start from."""
    runtime = RUNTIMES.get(language)
    if runtime is None:
        raise Http404(f"no language {language!r}; there are {', '.join(RUNTIMES)}")
    code = (settings.BASE_DIR / "starters" / runtime.name / runtime.entry).read_bytes()
    response = HttpResponse(code, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, runtime.entry) or ""
    return response


def _store_upload(request: HttpRequest, form: UploadForm, bot: Bot | None) -> BotVersion | None:
    """The stored version, or None with the reason added to the form."""
    upload = form.cleaned_data["code"]
    try:
        # Never more than one byte past the limit in memory: read_upload refuses it then.
        limit = Limits.from_settings().upload_bytes
        bundle = read_upload(upload.name, upload.read(limit + 1))
        with transaction.atomic():
            if bot is None:
                data = form.cleaned_data
                bot = bot_actions.create_bot(request.user, data["game"], data["name"])  # type: ignore[arg-type]
            version, new = upload_version(bot, bundle)
    except UploadError as error:
        form.add_error("code", str(error))
        return None
    except ServiceError as error:
        form.add_error("name" if "named" in str(error) else None, str(error))
        return None
    if not new:
        messages.info(request, f"This code is already version {version.number}; nothing new.")
    return version


def version_page(request: HttpRequest, version_id: int) -> HttpResponse:
    """A version's check: its progress (the page refreshes itself) and its verdict."""
    version = get_object_or_404(
        BotVersion.objects.select_related("bot__owner").defer("code"), pk=version_id
    )
    mine = owns_bot(request.user, version.bot)
    report = version.check_report if mine else {}
    waiting = version.status in (BotVersion.Status.PENDING, BotVersion.Status.CHECKING)
    context = {"version": version, "bot": version.bot, "mine": mine, "report": report}
    context["waiting"] = waiting
    if request.GET.get("part") == "status":
        return render(request, "web/_version_status.html", context)
    return render(request, "web/version.html", context)
