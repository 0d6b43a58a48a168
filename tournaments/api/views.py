"""The API's views. Querysets are built (and their N+1 fixed) in ``get_queryset``; who may
do what is asked of tournaments.api.permissions; state changes go through the services."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Max, Prefetch, QuerySet
from django.http import HttpResponse, JsonResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import generics, mixins, status, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer, CharField
from rest_framework.views import APIView

from judge.bots import policies
from judge.engine import GameError
from judge.games import GAMES, game_class
from tournaments import services
from tournaments.api import actions, filters, serializers
from tournaments.api.pagination import Pages
from tournaments.api.permissions import (
    ChangesBot,
    ChangesTournament,
    OwnsVersion,
    owns_bot,
    owns_version,
)
from tournaments.models import Bot, BotVersion, Match, Rating, Seat, Tournament
from tournaments.standings import tournament_table
from tournaments.uploads import UploadError, UploadTooLarge, read_upload


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the object is not in a state that allows this"
    default_code = "conflict"


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the upload is too large"
    default_code = "too_large"


# People.


class RegisterView(generics.CreateAPIView[User]):
    """Make an account; the answer holds its API token."""

    serializer_class = serializers.RegisterSerializer
    permission_classes = (AllowAny,)

    def perform_create(self, serializer: BaseSerializer[User]) -> None:
        data = serializer.validated_data
        with transaction.atomic():
            if User.objects.filter(username__iexact=data["username"]).exists():
                raise ValidationError({"username": ["that name is taken"]})
            user = User.objects.create_user(
                data["username"], data.get("email", ""), data["password"]
            )
            user.token = Token.objects.create(user=user).key  # type: ignore[attr-defined]
        serializer.instance = user


class TokenView(APIView):
    """Trade a username and password for the API token (send it as ``Authorization: Token``)."""

    permission_classes = (AllowAny,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)

    @extend_schema(
        request=AuthTokenSerializer,
        responses=inline_serializer("Token", {"token": CharField()}),
        operation_id="token_create",
    )
    def post(self, request: Request) -> Response:
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})


class MeView(generics.RetrieveAPIView[User]):
    serializer_class = serializers.UserSerializer
    permission_classes = (IsAuthenticated,)

    def get_object(self) -> User:
        return self.request.user  # type: ignore[return-value]


# Games and leaderboards.


def game_info(name: str) -> dict[str, Any]:
    engine = game_class(name)
    return {
        "name": name,
        "min_players": engine.min_players,
        "max_players": engine.max_players,
        "default_players": engine.default_players,
        "variants": list(engine.variants),
        "options": dict(engine.option_defaults),
        "house_bots": sorted(policies(name)),
    }


class GamesView(APIView):
    """The games, their table sizes, variants, options and house bots (a fixed, short list)."""

    permission_classes = (AllowAny,)

    @extend_schema(responses=serializers.GameSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response([game_info(name) for name in sorted(GAMES)])


class LeaderboardView(generics.ListAPIView[Rating]):
    """Global Elo of every rated bot of one game, best first."""

    serializer_class = serializers.LeaderboardRowSerializer
    filterset_class = filters.LeaderboardFilter
    ordering_fields = ("elo", "matches")
    permission_classes = (AllowAny,)

    def get_queryset(self) -> QuerySet[Rating]:
        if getattr(self, "swagger_fake_view", False):  # the schema asks without a game
            return Rating.objects.none()
        game = self.kwargs["game"]
        if game not in GAMES:
            raise NotFound(f"no game {game!r}; choose one of {sorted(GAMES)}")
        return Rating.objects.filter(game=game).select_related("bot__owner").order_by("-elo", "id")


# Bots and versions.


def version_queryset() -> QuerySet[BotVersion]:
    return BotVersion.objects.select_related("bot__owner").defer("code")


class BotViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[Bot],
):
    """Bots: anyone lists and reads them; signed-in users create theirs."""

    serializer_class = serializers.BotSerializer
    permission_classes = (IsAuthenticatedOrReadOnly, ChangesBot)
    filterset_class = filters.BotFilter
    ordering_fields = ("id", "name", "created_at")

    def get_queryset(self) -> QuerySet[Bot]:
        return (
            Bot.objects.select_related("owner", "rating")
            .annotate(version_count=Count("versions"), latest_version=Max("versions__number"))
            .order_by("id")
        )

    def perform_create(self, serializer: BaseSerializer[Bot]) -> None:
        data = serializer.validated_data
        try:
            bot = services.create_bot(self.request.user, data["game"], data["name"])  # type: ignore[arg-type]
        except (services.ServiceError, GameError) as error:
            raise ValidationError({"name": [str(error)]}) from None
        bot.version_count = 0  # type: ignore[attr-defined]
        bot.latest_version = None  # type: ignore[attr-defined]
        serializer.instance = bot

    @extend_schema(request=None, responses=serializers.BotSerializer)
    @action(detail=True, methods=["post"])
    def retire(self, request: Request, pk: str | None = None) -> Response:
        """Retire the bot: it keeps its history but enters no new tournament."""
        bot = actions.retire_bot(self.get_object())
        return Response(self.get_serializer(bot).data)

    @extend_schema(
        methods=["GET"],
        responses=serializers.VersionSerializer(many=True),
        operation_id="bots_versions_list",
    )
    @extend_schema(
        methods=["POST"],
        request={"multipart/form-data": serializers.UploadSerializer},
        responses={
            201: serializers.VersionDetailSerializer,
            200: OpenApiResponse(
                serializers.VersionDetailSerializer, description="the same code: that version"
            ),
            400: OpenApiResponse(description="a refused upload, and why"),
            413: OpenApiResponse(description="the upload is over the size limit"),
        },
        operation_id="bots_versions_upload",
    )
    @action(
        detail=True,
        methods=["get", "post"],
        parser_classes=(MultiPartParser, FormParser),
        filterset_class=None,
        ordering_fields=("number", "created_at"),
    )
    def versions(self, request: Request, pk: str | None = None) -> Response:
        """GET: the bot's versions. POST: upload a new version (checked before it plays)."""
        bot = generics.get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
        if request.method == "POST":
            return self._upload(request, bot)
        pages = Pages()
        rows = version_queryset().filter(bot=bot).order_by("number")
        rows = OrderingFilter().filter_queryset(request, rows, self)
        page = pages.paginate_queryset(rows, request, view=self)
        return pages.get_paginated_response(serializers.VersionSerializer(page, many=True).data)

    def _upload(self, request: Request, bot: Bot) -> Response:
        if not owns_bot(request.user, bot):
            self.permission_denied(request, "only the bot's owner may upload its versions")
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
        if declared > 2 * limit_plus_one() + 64 * 1024:  # refused before the body is read
            raise PayloadTooLarge(f"the request is {declared} bytes; uploads are far smaller")
        form = serializers.UploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        try:
            bundle = read_upload(upload.name or "", upload.read(limit_plus_one()))
            version, created = actions.upload_version(bot, bundle)
        except UploadTooLarge as error:
            raise PayloadTooLarge(str(error)) from None
        except (UploadError, services.ServiceError) as error:
            raise ValidationError({"file": [str(error)]}) from None
        version = version_queryset().get(pk=version.pk)
        data = serializers.VersionDetailSerializer(version, context={"request": request}).data
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


def limit_plus_one() -> int:
    from tournaments.uploads import Limits

    return Limits.from_settings().upload_bytes + 1


class VersionViewSet(viewsets.ReadOnlyModelViewSet[BotVersion]):
    """Bot versions: public status; the owner also sees the check report and the code."""

    filterset_class = filters.VersionFilter
    ordering_fields = ("id", "number", "created_at")

    def get_queryset(self) -> QuerySet[BotVersion]:
        versions = version_queryset().order_by("id")
        return versions.defer("check_report") if self.action == "list" else versions

    def get_serializer_class(self) -> type[serializers.VersionSerializer]:
        if self.action == "retrieve":
            return serializers.VersionDetailSerializer
        return serializers.VersionSerializer

    @extend_schema(
        responses={(200, "application/zip"): OpenApiTypes.BINARY},
        operation_id="versions_code",
    )
    @action(detail=True, methods=["get"], permission_classes=(OwnsVersion,))
    def code(self, request: Request, pk: str | None = None) -> HttpResponse:
        """Download the version's code (a zip with main.py): the owner only."""
        version = self.get_object()
        code = BotVersion.objects.values_list("code", flat=True).get(pk=version.pk)
        response = HttpResponse(bytes(code), content_type="application/zip")
        name = f"{version.bot.name}-v{version.number}.zip"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


# Tournaments.


class TournamentViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[Tournament],
):
    """Tournaments: anyone reads them; signed-in users make them; the owner runs them."""

    serializer_class = serializers.TournamentSerializer
    permission_classes = (IsAuthenticatedOrReadOnly, ChangesTournament)
    filterset_class = filters.TournamentFilter
    ordering_fields = ("id", "created_at", "name")

    def get_queryset(self) -> QuerySet[Tournament]:
        tournaments = Tournament.objects.select_related("owner").order_by("id")
        if self.action in ("list", "retrieve"):
            entrants = Prefetch("participants", queryset=BotVersion.objects.only("id"))
            tournaments = tournaments.prefetch_related(entrants)
        return tournaments

    def perform_create(self, serializer: BaseSerializer[Tournament]) -> None:
        data = dict(serializer.validated_data)
        entrants: list[BotVersion] = data.pop("participants")
        check_entrants(entrants, rated=data.get("rated", True))
        check_rules(data)
        try:
            tournament = services.create_tournament(
                self.request.user,  # type: ignore[arg-type]
                data.pop("name"),
                data.pop("game"),
                entrants,
                seed=secrets.randbits(62),  # secret until it is over: it fixes every deal
                **data,
            )
        except (services.ServiceError, GameError) as error:
            raise ValidationError({"participants": [str(error)]}) from None
        serializer.instance = self.get_queryset().get(pk=tournament.pk)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str | None = None) -> Response:
        """Make and queue every match of the schedule."""
        tournament = self.get_object()
        check_entrants(list(tournament.participants.select_related("bot")), tournament.rated)
        try:
            services.start_tournament(tournament.pk)
        except services.ServiceError as error:
            raise Conflict(str(error)) from None
        return Response(self.get_serializer(self.get_queryset().get(pk=tournament.pk)).data)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Cancel queued matches; matches being played still finish."""
        tournament = self.get_object()
        try:
            services.cancel_tournament(tournament.pk)
        except services.ServiceError as error:
            raise Conflict(str(error)) from None
        return Response(self.get_serializer(self.get_queryset().get(pk=tournament.pk)).data)

    @extend_schema(responses=serializers.StandingsSerializer)
    @action(detail=True, methods=["get"], filterset_class=None)
    def standings(self, request: Request, pk: str | None = None) -> Response:
        """Places, points and Elo (with its 95% interval) from the matches played so far."""
        tournament = self.get_object()
        table = tournament_table(tournament)
        rows = [
            {
                "version": row.participant,
                "bot": table.versions[row.participant].bot_id,
                "bot_name": table.versions[row.participant].bot.name,
                "number": table.versions[row.participant].number,
                "place": row.place,
                "points": row.points,
                "pairs": row.pairs,
                "matches": row.matches,
                "elo": row.elo,
                "elo_low": row.elo_low,
                "elo_high": row.elo_high,
            }
            for row in table.rows
        ]
        body = {
            "tournament": tournament.pk,
            "status": tournament.status,
            "matches_done": tournament.matches_done,
            "matches_total": tournament.matches_total,
            "rows": rows,
        }
        return Response(serializers.StandingsSerializer(body).data)

    @extend_schema(responses=serializers.HeadToHeadSerializer)
    @action(detail=True, methods=["get"], url_path="head-to-head", filterset_class=None)
    def head_to_head(self, request: Request, pk: str | None = None) -> Response:
        """Each version's points against each other one, out of the pairs they played."""
        tournament = self.get_object()
        table = tournament_table(tournament)
        pairs = [
            {"version": a, "opponent": b, "points": score.points, "pairs": score.pairs}
            for a, row in sorted(table.head_to_head.items())
            for b, score in sorted(row.items())
        ]
        body = {"tournament": tournament.pk, "pairs": pairs}
        return Response(serializers.HeadToHeadSerializer(body).data)


def check_entrants(entrants: list[BotVersion], rated: bool) -> None:
    """Rated play needs checked (accepted) versions; no one plays a retired bot."""
    for version in entrants:
        if version.bot.retired:
            raise ValidationError({"participants": [f"{version.bot.name} is retired"]})
        if rated and version.status != BotVersion.Status.ACCEPTED:
            raise ValidationError(
                {
                    "participants": [
                        f"{version} is {version.status}: only accepted (checked) versions "
                        "play rated games; wait for its check, or make the tournament unrated"
                    ]
                }
            )
        if version.status == BotVersion.Status.REJECTED:
            raise ValidationError({"participants": [f"{version} failed its check"]})


def check_rules(data: dict[str, Any]) -> None:
    """The variant, options and table size must make a game (the engine says what is wrong)."""
    try:
        game_class(data["game"])(
            0,
            players=data.get("table_size") or None,
            variant=data.get("variant") or None,
            options=data.get("options") or {},
        )
    except (GameError, TypeError, ValueError) as error:
        raise ValidationError({"options": [str(error)]}) from None


# Matches.


class MatchViewSet(viewsets.ReadOnlyModelViewSet[Match]):
    """Matches: results appear once a match is over; a seat's log only to its bot's owner."""

    filterset_class = filters.MatchFilter
    ordering_fields = ("id", "finished_at", "enqueued_at")

    def get_queryset(self) -> QuerySet[Match]:
        seats = Seat.objects.select_related("version__bot__owner").defer(
            "version__code", "version__check_report"
        )
        if self.action != "retrieve":
            seats = seats.defer("log")
        matches = Match.objects.prefetch_related(Prefetch("seats", queryset=seats))
        if self.action != "replay":
            matches = matches.defer("replay", "failure")
        return matches.order_by("-id")

    def get_serializer_class(self) -> type[serializers.MatchSerializer]:
        if self.action == "retrieve":
            return serializers.MatchDetailSerializer
        return serializers.MatchSerializer

    @extend_schema(
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            409: OpenApiResponse(description="the match is not over yet"),
        }
    )
    @action(detail=True, methods=["get"], filterset_class=None)
    def replay(self, request: Request, pk: str | None = None) -> JsonResponse:
        """The match record (every deal and action): only once the match is over."""
        match = self.get_object()
        if match.status != Match.Status.DONE or match.replay is None:
            raise Conflict(
                f"match {match.pk} is {match.status}; its replay (with every hidden card) "
                "is shown once it is over"
            )
        response = JsonResponse(match.replay)
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
        return response

    @extend_schema(
        request=serializers.QuickMatchSerializer,
        responses={202: serializers.MatchSerializer},
        operation_id="matches_quick",
    )
    @action(
        detail=False,
        methods=["post"],
        permission_classes=(IsAuthenticated,),
        parser_classes=(JSONParser, FormParser, MultiPartParser),
        filterset_class=None,
    )
    def quick(self, request: Request) -> Response:
        """Ask for an unrated match of your version against chosen versions and house bots."""
        form = serializers.QuickMatchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        version = find_versions([data["version"]], "version")[0]
        if not owns_version(request.user, version):
            self.permission_denied(request, "a quick match is for your own bot versions")
        opponents = find_versions(data["opponents"], "opponents")
        try:
            match = actions.request_quick_match(
                version, opponents, data["house_bots"], data["games"], data.get("seed")
            )
        except (services.ServiceError, GameError) as error:
            raise ValidationError({"opponents": [str(error)]}) from None
        match = self.get_queryset().get(pk=match.pk)
        return Response(serializers.MatchSerializer(match).data, status=status.HTTP_202_ACCEPTED)


def find_versions(ids: list[int], field: str) -> list[BotVersion]:
    found = {v.pk: v for v in version_queryset().filter(pk__in=ids)}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise ValidationError({field: [f"no bot version {missing[0]}"]})
    return [found[pk] for pk in ids]
