"""The API's routes under /api/ (the browsable root lists them; /api/schema/ describes them)."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from tournaments.api import accounts, bots, duels, fairplay, games, matches, tables, tournaments

router = DefaultRouter()
router.register("bots", bots.BotViewSet, basename="bot")
router.register("versions", bots.VersionViewSet, basename="version")
router.register("tournaments", tournaments.TournamentViewSet, basename="tournament")
router.register("matches", matches.MatchViewSet, basename="match")
router.register("duels", duels.DuelViewSet, basename="duel")
router.register("tables", tables.TableViewSet, basename="table")
router.register("fairplay/flags", fairplay.FairPlayFlagViewSet, basename="fairplay-flag")

urlpatterns = [
    path("", include(router.urls)),
    path("register/", accounts.RegisterView.as_view(), name="register"),
    path("token/", accounts.TokenView.as_view(), name="token"),
    path("me/", accounts.MeView.as_view(), name="me"),
    path("games/", games.GamesView.as_view(), name="games"),
    path("leaderboards/<str:game>/", games.LeaderboardView.as_view(), name="leaderboard"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("auth/", include("rest_framework.urls")),
]
