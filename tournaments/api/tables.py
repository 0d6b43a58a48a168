"""People's tables (tournaments.play.human_match): sit down against bots, see your tables,
leave one. A table's own capacity is TABLE_SLOTS live tables, one per person: past it the
answer is 503 with Retry-After ("all tables are busy; try again in a few minutes"), and a
second table of one person is 409. The moves themselves go through the table page's JSON
(``/matches/ID/table/state/`` and ``answer/``), named in each table's ``urls``."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from judge import games
from judge.engine import GameError
from tournaments.api.errors import Conflict, over_quota
from tournaments.api.matches import find_versions
from tournaments.api.parsers import BoundedJSONParser
from tournaments.api.throttles import QuickMatchThrottle
from tournaments.errors import ServiceError
from tournaments.guard.quotas import QuotaExceeded
from tournaments.models import BotVersion, Match
from tournaments.play import human_match


class TablesBusy(APIException):
    """503: every table slot is taken; Retry-After says when to try again."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "all tables are busy; try again in a few minutes"
    default_code = "tables_busy"


class SitDownSerializer(serializers.Serializer[Any]):
    game = serializers.ChoiceField(choices=[name for name, _ in games.choices()])
    variant = serializers.CharField(max_length=32, default="", allow_blank=True)
    opponents = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**31 - 1),
        default=list,
        max_length=7,
        help_text="accepted bot versions of the game, in the seats after yours",
    )
    house_bots = serializers.ListField(
        child=serializers.CharField(max_length=64),
        default=list,
        max_length=7,
        help_text="house bots by name (random, greedy...), in the seats after those",
    )


class TableSerializer(serializers.ModelSerializer[Match]):
    urls = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = ("id", "game", "variant", "status", "created_at", "urls")
        read_only_fields = fields

    def get_urls(self, match: Match) -> dict[str, str]:
        """The table page, its state and answer endpoints, and leaving."""
        names = {"page": "web:table", "state": "web:table_state", "answer": "web:table_answer"}
        urls = {key: reverse(name, args=[match.pk]) for key, name in names.items()}
        urls["leave"] = reverse("table-leave", args=[match.pk])
        return urls


class TableViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Match]
):
    """Your tables, newest first; sit down at a new one; leave one."""

    permission_classes = (IsAuthenticated,)
    serializer_class = TableSerializer
    filterset_class = None
    ordering_fields = ("id",)

    def get_queryset(self) -> QuerySet[Match]:
        mine = human_match.table_matches_of(self.request.user)  # type: ignore[arg-type]
        return mine.order_by("-id")

    @extend_schema(
        request=SitDownSerializer,
        responses={
            201: TableSerializer,
            409: OpenApiResponse(description="you are at a table already"),
            503: OpenApiResponse(description="all tables are busy (Retry-After)"),
        },
    )
    def create(self, request: Request) -> Response:
        """Sit down at a table of ``game`` against bots and house bots (one table at once)."""
        form = SitDownSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        opponents: list[BotVersion | str] = [*find_versions(data["opponents"], "opponents")]
        opponents += data["house_bots"]
        try:
            match = human_match.request_human_match(
                request.user,  # type: ignore[arg-type]
                data["game"],
                opponents,
                data["variant"],
            )
        except human_match.TablesBusy as error:
            raise busy(error) from None
        except human_match.AtATable as error:
            raise Conflict(str(error)) from None
        except QuotaExceeded as error:
            raise over_quota(error) from None
        except (ServiceError, GameError) as error:
            raise ValidationError({"opponents": [str(error)]}) from None
        return Response(TableSerializer(match).data, status=status.HTTP_201_CREATED)

    def get_throttles(self) -> list[Any]:
        if self.action == "create":
            return [QuickMatchThrottle()]
        return super().get_throttles()

    def get_parsers(self) -> list[Any]:
        return [BoundedJSONParser(), FormParser(), MultiPartParser()]

    @extend_schema(
        request=None,
        responses={200: TableSerializer, 409: OpenApiResponse(description="it is over")},
    )
    @action(detail=True, methods=["post"])
    def leave(self, request: Request, pk: str | None = None) -> Response:
        """Leave your table: still queued, it is cancelled at once; being played, the engine
        plays your seat to the end of the match."""
        match = self.get_object()
        try:
            human_match.leave_table(match)
        except ServiceError as error:
            raise Conflict(str(error)) from None
        match.refresh_from_db()
        return Response(TableSerializer(match).data)


def busy(error: human_match.TablesBusy) -> TablesBusy:
    """503 with the reason in words; Retry-After is set by the exception handler."""
    refused = TablesBusy(detail=str(error))
    refused.wait = error.retry_after  # type: ignore[attr-defined]
    return refused
