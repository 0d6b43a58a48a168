"""Matches: results once over, logs for each seat's owner, replays, quick matches."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from judge.engine import GameError
from tournaments.api import actions, filters, serializers
from tournaments.api.bots import version_queryset
from tournaments.api.errors import Conflict, over_quota
from tournaments.api.parsers import BoundedJSONParser
from tournaments.api.permissions import owns_version
from tournaments.api.throttles import QuickMatchThrottle
from tournaments.competitions import duels
from tournaments.errors import ServiceError
from tournaments.guard.quotas import QuotaExceeded
from tournaments.models import BotVersion, Match, Seat
from tournaments.play import queued_work, replay_store

#: What a match list shows (serializers.MatchSerializer), and of each seat.
MATCH_COLUMNS = tuple(f for f in serializers.MatchSerializer.Meta.fields if f != "seats")
SEAT_COLUMNS = (
    "match_id",
    "index",
    "version__number",
    "version__bot__name",
    "version__bot__owner__username",
)


class MatchViewSet(viewsets.ReadOnlyModelViewSet[Match]):
    """Matches: results appear once a match is over; a seat's log only to its bot's owner;
    a private duel's rounds only to the duel's owner (404 for others)."""

    filterset_class = filters.MatchFilter
    # Pages follow a cursor on the id (finished_at and enqueued_at may be empty).
    ordering_fields = ("id",)

    def get_queryset(self) -> QuerySet[Match]:
        # Only the columns the serializers read: a page of 100 matches is 1,300 rows of
        # seats, versions, bots and owners, and every column more is decoded per row.
        shown = (*SEAT_COLUMNS, "log") if self.action == "retrieve" else SEAT_COLUMNS
        seats = Seat.objects.select_related("version__bot__owner").only(*shown)
        matches = Match.objects.filter(duels.visible_matches(self.request.user))
        matches = matches.prefetch_related(Prefetch("seats", queryset=seats))
        if self.action == "replay":
            return matches.select_related("replay")
        if self.action == "retrieve":
            return matches
        return matches.only(*MATCH_COLUMNS).order_by("-id")

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
    def replay(self, request: Request, pk: str | None = None) -> HttpResponse:
        """The match record (every deal and action): only once the match is over.

        Sent as stored, gzipped (Content-Encoding: gzip), to clients that accept gzip.
        """
        match = self.get_object()
        stored = getattr(match, "replay", None)
        if match.status != Match.Status.DONE or stored is None:
            raise Conflict(
                f"match {match.pk} is {match.status}; its replay (with every hidden card) "
                "is shown once it is over"
            )
        response = replay_store.gzip_response(request, replay_store.compressed(stored))
        response["Content-Disposition"] = (
            content_disposition_header(True, f"match-{match.pk}.json") or ""
        )
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
        parser_classes=(BoundedJSONParser, FormParser, MultiPartParser),
        filterset_class=None,
        throttle_classes=(QuickMatchThrottle,),
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
                version,
                opponents,
                data["house_bots"],
                data["games"],
                data.get("seed"),
                requested_by=request.user,  # type: ignore[arg-type]
            )
        except QuotaExceeded as error:
            raise over_quota(error) from None
        except (ServiceError, GameError) as error:
            raise ValidationError({"opponents": [str(error)]}) from None
        match = self.get_queryset().get(pk=match.pk)
        return Response(serializers.MatchSerializer(match).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        request=None,
        responses={200: serializers.MatchSerializer, 409: OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    @action(
        detail=True, methods=["post"], permission_classes=(IsAuthenticated,), filterset_class=None
    )
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Cancel a quick match you asked for while it waits (409 once a worker has begun it)."""
        match = self.get_object()
        if match.requested_by_id != request.user.pk and not request.user.is_staff:
            self.permission_denied(request, "only who asked for a quick match may cancel it")
        try:
            queued_work.cancel_quick_match(match.pk, request.user)  # type: ignore[arg-type]
        except ServiceError as error:
            raise Conflict(str(error)) from None
        match = self.get_queryset().get(pk=match.pk)
        return Response(serializers.MatchSerializer(match).data)


def find_versions(ids: list[int], field: str) -> list[BotVersion]:
    found = {v.pk: v for v in version_queryset().filter(pk__in=ids)}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise ValidationError({field: [f"no bot version {missing[0]}"]})
    return [found[pk] for pk in ids]
