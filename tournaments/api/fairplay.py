"""The fair-play flags (issue 43, docs/fair-play.md): staff only. Staff list and read the
flags with their evidence, dismiss one, or void the version's rated results and
recompute the ratings; everyone else is refused (403), as is anyone signed out."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.errors import Conflict
from tournaments.api.parsers import BoundedJSONParser
from tournaments.fairplay import voiding
from tournaments.models import FairPlayFlag


class FairPlayFlagSerializer(serializers.ModelSerializer[FairPlayFlag]):
    """A flag and its evidence (``evidence``: the audit's finding, the matches it rests
    on; ``voided_matches`` once voided)."""

    version_name = serializers.CharField(source="version.__str__", read_only=True)

    class Meta:
        model = FairPlayFlag
        fields: tuple[str, ...] = (
            "id",
            "kind",
            "game",
            "version",
            "version_name",
            "partner",
            "status",
            "current",
            "statistic",
            "p_value",
            "threshold",
            "effect",
            "deals",
            "matches",
            "evidence",
            "note",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields


class DecisionSerializer(serializers.Serializer[Any]):
    note = serializers.CharField(max_length=2000, default="", allow_blank=True)


class FairPlayFlagViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[FairPlayFlag],
):
    """Staff: the fair-play audits' flags, newest first; dismiss or void one."""

    serializer_class = FairPlayFlagSerializer
    permission_classes = (IsAdminUser,)
    ordering_fields = ("id",)

    def get_queryset(self) -> QuerySet[FairPlayFlag]:
        return FairPlayFlag.objects.select_related("version__bot").order_by("-id")

    def get_parsers(self) -> list[Any]:
        return [BoundedJSONParser(), FormParser()]

    @extend_schema(
        request=DecisionSerializer,
        responses={200: FairPlayFlagSerializer, 409: OpenApiResponse(description="voided")},
    )
    @action(detail=True, methods=["post"])
    def dismiss(self, request: Request, pk: str | None = None) -> Response:
        """Dismiss the flag as unfounded (409 once voided)."""
        flag, note = self.get_object(), self._note(request)
        try:
            voiding.dismiss(flag, note)
        except voiding.FlagClosed as closed:
            raise Conflict(str(closed)) from None
        return Response(FairPlayFlagSerializer(self.get_queryset().get(pk=flag.pk)).data)

    @extend_schema(
        request=DecisionSerializer,
        responses={200: FairPlayFlagSerializer, 409: OpenApiResponse(description="voided")},
    )
    @action(detail=True, methods=["post"])
    def void(self, request: Request, pk: str | None = None) -> Response:
        """Void the version's rated results, retire it and recompute every rating (the
        whole history is replayed: minutes on a big site; 409 once voided)."""
        flag, note = self.get_object(), self._note(request)
        try:
            voiding.void(flag, f"{note} (by {request.user})".strip())
        except voiding.FlagClosed as closed:
            raise Conflict(str(closed)) from None
        return Response(FairPlayFlagSerializer(self.get_queryset().get(pk=flag.pk)).data)

    @staticmethod
    def _note(request: Request) -> str:
        form = DecisionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return str(form.validated_data["note"])
