"""Tournaments: made, started and cancelled by their owner; standings for everyone."""

from __future__ import annotations

import secrets
from typing import Any

from django.db.models import Prefetch, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from judge.engine import GameError
from tournaments.api import filters, serializers
from tournaments.api.errors import Conflict, over_quota
from tournaments.api.permissions import ChangesTournament
from tournaments.competitions import competition_actions
from tournaments.competitions.standings import tournament_table
from tournaments.errors import ServiceError
from tournaments.game_settings import checked_settings
from tournaments.guard.quotas import QuotaExceeded
from tournaments.models import BotVersion, Tournament


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
    cursor_ordering = ("id",)

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
            tournament = competition_actions.create_tournament(
                self.request.user,  # type: ignore[arg-type]
                data.pop("name"),
                data.pop("game"),
                entrants,
                seed=secrets.randbits(62),  # secret until it is over: it fixes every deal
                **data,
            )
        except (ServiceError, GameError) as error:
            raise ValidationError({"participants": [str(error)]}) from None
        serializer.instance = self.get_queryset().get(pk=tournament.pk)

    @extend_schema(request=None, responses={202: serializers.TournamentSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str | None = None) -> Response:
        """Start it: answered at once (202) with the tournament ``scheduling`` while a task
        works out and writes its matches (``matches_total`` is their count; it is
        ``running`` once all are written). Quotas are checked first: a refusal (429)
        changes nothing. Should the written schedule not fit after all, it is a draft
        again with ``start_failure`` saying why."""
        tournament = self.get_object()
        check_entrants(list(tournament.participants.select_related("bot")), tournament.rated)
        try:
            competition_actions.queue_start(tournament.pk)
        except QuotaExceeded as error:
            raise over_quota(error) from None
        except ServiceError as error:
            raise Conflict(str(error)) from None
        started = self.get_serializer(self.get_queryset().get(pk=tournament.pk))
        return Response(started.data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Cancel queued matches; matches being played still finish."""
        tournament = self.get_object()
        try:
            competition_actions.cancel_tournament(tournament.pk)
        except ServiceError as error:
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
                "units": row.units,
                "provisional": row.provisional,
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
        if version.bot.retired or version.retired:
            raise ValidationError({"participants": [f"{version} is retired"]})
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
    """The variant, options and table size must be within the game's declared bounds
    (checked_settings, the one validator; its message is the 400's)."""
    try:
        checked_settings(
            data["game"], data.get("table_size"), data.get("variant"), data.get("options") or {}
        )
    except ServiceError as error:
        raise ValidationError({"options": [str(error)]}) from None
