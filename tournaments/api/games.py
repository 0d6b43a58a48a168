"""The games the service plays, and each game's leaderboard."""

from __future__ import annotations

from typing import Any

from django.db.models import F, QuerySet
from django.db.models.functions import Coalesce
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judge.bots import policies
from judge.games import GAMES, game_class
from tournaments.api import filters, serializers
from tournaments.models import Rating


def game_info(name: str) -> dict[str, Any]:
    engine = game_class(name)
    return {
        "name": name,
        "title": engine.title or name,
        "min_players": engine.min_players,
        "max_players": engine.max_players,
        "default_players": engine.default_players,
        "variants": list(engine.variants),
        "variant_titles": {v: engine.title_of(v) for v in engine.variants},
        "options": dict(engine.option_defaults),
        "option_schema": [option.to_json() for option in engine.option_schema],
        "house_bots": sorted(policies(name)),
    }


class GamesView(APIView):
    """The games, their table sizes, variants, options and house bots (a fixed, short list)."""

    permission_classes = (AllowAny,)

    @extend_schema(responses=serializers.GameSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response([game_info(name) for name in GAMES])


class LeaderboardView(generics.ListAPIView[Rating]):
    """The global rating of every rated bot of one game (with its 95% interval), best first:
    by the rating shown (``standing``: the field view's where there is one, as the page),
    so the order never contradicts the intervals; ``?ordering=elo`` orders by the stored."""

    serializer_class = serializers.LeaderboardRowSerializer
    filterset_class = filters.LeaderboardFilter
    ordering_fields = ("shown", "elo", "matches")
    cursor_ordering = ("-shown", "id")
    permission_classes = (AllowAny,)

    def get_queryset(self) -> QuerySet[Rating]:
        if getattr(self, "swagger_fake_view", False):  # the schema asks without a game
            return Rating.objects.none()
        game = self.kwargs["game"]
        if game not in GAMES:
            raise NotFound(f"no game {game!r}; choose one of {sorted(GAMES)}")
        return (
            Rating.objects.filter(game=game)
            .select_related("bot__owner", "field")
            .annotate(shown=Coalesce(F("field__elo"), F("elo")))
            .order_by("-shown", "id")
        )
