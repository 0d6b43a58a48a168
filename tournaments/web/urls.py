"""The web pages' routes (included at the site's root by tournaments/config/urls.py)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from tournaments.web import (
    account_views,
    board_views,
    bot_views,
    check_replay_views,
    doc_views,
    duel_views,
    game_files,
    live_views,
    match_views,
    ops_views,
    quick_views,
    table_views,
    tournament_views,
)

app_name = "web"

urlpatterns = [
    path("", board_views.home, name="home"),
    path("metrics", ops_views.metrics_view, name="metrics"),
    path("health", ops_views.health_view, name="health"),
    path("leaderboard/<str:game>/", board_views.leaderboard, name="leaderboard"),
    path("bots/upload/", bot_views.upload, name="upload"),
    path("bots/<int:bot_id>/", bot_views.bot_page, name="bot"),
    path("bots/<int:bot_id>/upload/", bot_views.upload, name="upload_version"),
    path("bots/<int:bot_id>/quick/", quick_views.quick_match, name="quick_match"),
    path("versions/<int:version_id>/", bot_views.version_page, name="version"),
    path(
        "versions/<int:version_id>/ladder/",
        bot_views.put_back_on_ladder,
        name="put_back_on_ladder",
    ),
    path(
        "versions/<int:version_id>/check/<int:number>/",
        check_replay_views.check_replay,
        name="check_replay",
    ),
    path(
        "versions/<int:version_id>/check/<int:number>/frames/",
        check_replay_views.check_frames,
        name="check_frames",
    ),
    path("starters/<str:language>/", bot_views.starter, name="starter"),
    path("docs/", doc_views.docs_index, name="docs"),
    path("docs/starters/", doc_views.starters, name="starters"),
    path("docs/<str:name>/", doc_views.doc, name="doc"),
    path("rules/", doc_views.rules_index, name="rules_index"),
    path("rules/<str:game>/", doc_views.rules, name="rules"),
    path("rules/<str:game>/tests/", doc_views.rules_tests, name="rules_tests"),
    path("games/<str:game>/replay.js", game_files.renderer_script, name="renderer_script"),
    path("tournaments/", tournament_views.tournament_list, name="tournaments"),
    path("tournaments/new/", tournament_views.tournament_create, name="tournament_create"),
    path("tournaments/<int:tournament_id>/", tournament_views.tournament_page, name="tournament"),
    path(
        "tournaments/<int:tournament_id>/cancel/",
        tournament_views.tournament_cancel,
        name="tournament_cancel",
    ),
    path(
        "tournaments/<int:tournament_id>/resume/",
        tournament_views.tournament_resume,
        name="tournament_resume",
    ),
    path("matches/<int:match_id>/", match_views.match_page, name="match"),
    path(
        "matches/<int:match_id>/cancel/",
        match_views.cancel_quick_match,
        name="cancel_quick_match",
    ),
    path("matches/<int:match_id>/frames/", match_views.replay_frames, name="frames"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(template_name="web/login.html", next_page="web:home"),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="web:home"), name="logout"),
    path("accounts/token/", account_views.token, name="token"),
    path("play/<str:game>/", table_views.sit_down, name="sit_down"),
    path("matches/<int:match_id>/table/", table_views.table, name="table"),
    path("matches/<int:match_id>/table/state/", table_views.table_state, name="table_state"),
    path("matches/<int:match_id>/table/answer/", table_views.table_answer, name="table_answer"),
    path("matches/<int:match_id>/table/leave/", table_views.table_leave, name="table_leave"),
    path("matches/<int:match_id>/live/", table_views.live, name="live_feed"),
    path("now-playing/<str:game>/", live_views.now_playing, name="now_playing"),
    path("duels/", duel_views.duel_list, name="duels"),
    path("bots/<int:bot_id>/duel/", duel_views.duel_new, name="duel_new"),
    path("duels/<int:duel_id>/", duel_views.duel_page, name="duel"),
    path("duels/<int:duel_id>/cancel/", duel_views.duel_cancel, name="duel_cancel"),
]
