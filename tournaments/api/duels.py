"""Duels (issue 35): is my new version B stronger than A? Each duel is its owner's alone:
others neither see nor cancel it (the queryset is the owner's, so theirs are 404)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from judge.engine import GameError
from tournaments.api.errors import Conflict
from tournaments.api.matches import find_versions
from tournaments.api.parsers import BoundedJSONParser
from tournaments.api.throttles import QuickMatchThrottle
from tournaments.competitions import duels
from tournaments.errors import ServiceError
from tournaments.guard.queryparams import MAX_KEY
from tournaments.models import Duel


class DuelRequestSerializer(serializers.Serializer[Any]):
    """What a duel asks for; the service checks the rest (tournaments.competitions.duels)."""

    b = serializers.IntegerField(
        min_value=1, max_value=MAX_KEY, help_text="the challenger: an accepted version of yours"
    )
    a = serializers.IntegerField(
        min_value=1, max_value=MAX_KEY, help_text="the baseline: any accepted version"
    )
    panel = serializers.IntegerField(
        min_value=1,
        max_value=MAX_KEY,
        required=False,
        help_text="the version in the other seats of a larger table (default: house greedy)",
    )
    table_size = serializers.IntegerField(min_value=0, max_value=16, default=0)
    variant = serializers.CharField(max_length=32, default="", allow_blank=True)
    options = serializers.DictField(default=dict)
    pairs_per_round = serializers.IntegerField(
        min_value=1,
        max_value=duels.MAX_PAIRS_PER_ROUND,
        required=False,
        help_text="pairs a round dispatches (default: the server's DUEL_PAIRS_PER_ROUND)",
    )
    elo0 = serializers.FloatField(min_value=-400, max_value=400, default=0.0)
    elo1 = serializers.FloatField(min_value=-400, max_value=400, default=20.0)
    alpha = serializers.FloatField(min_value=0.001, max_value=0.499, default=0.05)
    beta = serializers.FloatField(min_value=0.001, max_value=0.499, default=0.05)
    max_games = serializers.IntegerField(
        min_value=duels.MIN_GAMES, max_value=duels.MAX_GAMES, default=4000
    )
    seed = serializers.IntegerField(min_value=0, max_value=2**62, required=False)


class DuelSerializer(serializers.ModelSerializer[Duel]):
    """A duel and where its test stands (``state``: counts, LLR history, decision, Elo)."""

    a_name = serializers.CharField(source="a.__str__", read_only=True)
    b_name = serializers.CharField(source="b.__str__", read_only=True)

    class Meta:
        model = Duel
        fields: tuple[str, ...] = (
            "id",
            "game",
            "variant",
            "options",
            "table_size",
            "a",
            "a_name",
            "b",
            "b_name",
            "panel",
            "pairs_per_round",
            "seed",
            "status",
            "state",
            "failure",
            "created_at",
            "finished_at",
        )
        read_only_fields = fields


class DuelViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[Duel],
):
    """Your duels: make one, list and read yours, cancel one while it runs."""

    serializer_class = DuelSerializer
    permission_classes = (IsAuthenticated,)
    ordering_fields = ("id",)

    def get_queryset(self) -> QuerySet[Duel]:
        return (
            Duel.objects.filter(owner_id=self.request.user.pk)
            .select_related("a__bot", "b__bot")
            .order_by("-id")
        )

    @extend_schema(
        request=DuelRequestSerializer,
        responses={201: DuelSerializer, 400: OpenApiResponse(description="a bad request")},
    )
    def create(self, request: Request) -> Response:
        """Start a duel of your version B against A; its rounds are queued at once."""
        form = DuelRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(form.validated_data)
        chosen = ["b", "a", *(["panel"] if "panel" in data else [])]
        for field in chosen:
            data[field] = find_versions([data[field]], field)[0]
        try:
            duel = duels.create_duel(request.user, duels.DuelRequest(**data))  # type: ignore[arg-type]
        except (ServiceError, GameError) as error:
            raise ValidationError({"non_field_errors": [str(error)]}) from None
        shown = self.get_queryset().get(pk=duel.pk)
        return Response(DuelSerializer(shown).data, status=status.HTTP_201_CREATED)

    def get_throttles(self) -> list[Any]:
        if self.action == "create":
            return [QuickMatchThrottle()]
        return list(super().get_throttles())

    def get_parsers(self) -> list[Any]:
        return [BoundedJSONParser(), FormParser(), MultiPartParser()]

    @extend_schema(
        request=None,
        responses={200: DuelSerializer, 409: OpenApiResponse(description="not running")},
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Cancel your running duel (409 once it is over); the rounds played stay."""
        duel = self.get_object()
        try:
            duels.cancel_duel(duel.pk, request.user)  # type: ignore[arg-type]
        except ServiceError as error:
            raise Conflict(str(error)) from None
        return Response(DuelSerializer(self.get_queryset().get(pk=duel.pk)).data)
