"""The API's routes under /api/ (the browsable root lists them; /api/schema/ describes them)."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from tournaments.api import views

router = DefaultRouter()
router.register("bots", views.BotViewSet, basename="bot")
router.register("versions", views.VersionViewSet, basename="version")
router.register("tournaments", views.TournamentViewSet, basename="tournament")
router.register("matches", views.MatchViewSet, basename="match")

urlpatterns = [
    path("", include(router.urls)),
    path("register/", views.RegisterView.as_view(), name="register"),
    path("token/", views.TokenView.as_view(), name="token"),
    path("me/", views.MeView.as_view(), name="me"),
    path("games/", views.GamesView.as_view(), name="games"),
    path("leaderboards/<str:game>/", views.LeaderboardView.as_view(), name="leaderboard"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("auth/", include("rest_framework.urls")),
]
