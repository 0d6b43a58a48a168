"""Bots and their versions: uploads (checked before they play), code for the owner."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max, QuerySet
from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from judge.engine import GameError
from tournaments.api import actions, filters, serializers
from tournaments.api.errors import PayloadTooLarge, over_quota
from tournaments.api.pagination import Pages
from tournaments.api.permissions import ChangesBot, ChangesVersion, OwnsVersion, owns_bot
from tournaments.api.throttles import UploadThrottle
from tournaments.bots import bot_actions
from tournaments.bots.uploads import Limits, UploadError, UploadTooLarge, read_upload
from tournaments.errors import ServiceError
from tournaments.guard.quotas import QuotaExceeded
from tournaments.models import Bot, BotVersion, RatingHistory


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
    cursor_ordering = ("id",)

    def get_queryset(self) -> QuerySet[Bot]:
        return (
            Bot.objects.select_related("owner", "rating__field")
            .annotate(version_count=Count("versions"), latest_version=Max("versions__number"))
            .order_by("id")
        )

    def perform_create(self, serializer: BaseSerializer[Bot]) -> None:
        data = serializer.validated_data
        try:
            bot = bot_actions.create_bot(self.request.user, data["game"], data["name"])  # type: ignore[arg-type]
        except (ServiceError, GameError) as error:
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
        cursor_ordering=("number",),
        throttle_classes=(UploadThrottle,),
    )
    def versions(self, request: Request, pk: str | None = None) -> Response:
        """GET: the bot's versions. POST: upload a new version (checked before it plays)."""
        bot = generics.get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
        if request.method == "POST":
            return self._upload(request, bot)
        rows = version_queryset().filter(bot=bot).order_by("number")
        rows = OrderingFilter().filter_queryset(request, rows, self)
        return self.paged(request, rows, serializers.VersionSerializer)

    @extend_schema(
        responses=serializers.RatingChangeSerializer(many=True),
        operation_id="bots_rating_history_list",
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="rating-history",
        filterset_class=None,
        ordering_fields=("seq",),
        cursor_ordering=("-seq",),
    )
    def rating_history(self, request: Request, pk: str | None = None) -> Response:
        """The bot's Elo before and after each rated match, newest first (cursor pages)."""
        bot = generics.get_object_or_404(Bot.objects.only("id"), pk=pk)
        rows = RatingHistory.objects.filter(bot=bot).order_by("-seq")
        rows = OrderingFilter().filter_queryset(request, rows, self)
        return self.paged(request, rows, serializers.RatingChangeSerializer)

    def paged(
        self, request: Request, rows: QuerySet[Any], serializer: type[BaseSerializer[Any]]
    ) -> Response:
        """One cursor page of ``rows`` of an action's own list."""
        pages = Pages()
        page = pages.paginate_queryset(rows, request, view=self)
        return pages.get_paginated_response(serializer(page, many=True).data)

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
        except QuotaExceeded as error:
            raise over_quota(error) from None
        except (UploadError, ServiceError) as error:
            raise ValidationError({"file": [str(error)]}) from None
        version = version_queryset().get(pk=version.pk)
        data = serializers.VersionDetailSerializer(version, context={"request": request}).data
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


def limit_plus_one() -> int:
    """Read one byte past the limit, so an upload over it is seen to be."""
    return Limits.from_settings().upload_bytes + 1


class VersionViewSet(viewsets.ReadOnlyModelViewSet[BotVersion]):
    """Bot versions: public status; the owner also sees the check report and the code."""

    filterset_class = filters.VersionFilter
    ordering_fields = ("id", "number", "created_at")
    cursor_ordering = ("id",)
    permission_classes = (IsAuthenticatedOrReadOnly, ChangesVersion)

    def get_queryset(self) -> QuerySet[BotVersion]:
        versions = version_queryset().order_by("id")
        return versions.defer("check_report") if self.action == "list" else versions

    def get_serializer_class(self) -> type[serializers.VersionSerializer]:
        if self.action == "retrieve":
            return serializers.VersionDetailSerializer
        return serializers.VersionSerializer

    @extend_schema(request=None, responses=serializers.VersionSerializer)
    @action(detail=True, methods=["post"])
    def retire(self, request: Request, pk: str | None = None) -> Response:
        """Retire the version: it keeps its matches but enters no new tournament or match."""
        version = actions.retire_version(self.get_object())
        return Response(serializers.VersionSerializer(version).data)

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
        response["Content-Disposition"] = content_disposition_header(True, name) or ""
        return response
