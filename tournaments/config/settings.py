"""Django settings, read from the environment (see .env.example). No secret is committed:
outside debug mode, DJANGO_SECRET_KEY must be set."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from kombu import Exchange, Queue

from tournaments.config.env import (
    SettingError,
    env_bool,
    env_choice,
    env_database,
    env_float,
    env_int,
    env_list,
    env_origins,
    env_str,
    local_secret_key,
)

BASE_DIR = Path(__file__).resolve().parents[2]  # the checkout: tournaments/config/settings.py

# Off unless asked for (DJANGO_DEBUG=1 while developing): the debug pages list every route
# and the settings. Without DJANGO_SECRET_KEY, a key made once is kept in var/secret-key.
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "") or local_secret_key(BASE_DIR / "var" / "secret-key")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

# Behind a TLS proxy (docs/deploy.md): the public origins that forms are posted from, and
# whether to believe the proxy's X-Forwarded-Proto (only when the proxy always sets it).
CSRF_TRUSTED_ORIGINS = env_origins("DJANGO_CSRF_TRUSTED_ORIGINS", [])
if env_bool("DJANGO_BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Sign-in and CSRF cookies travel over HTTPS only, unless debugging.
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "tournaments.guard.addresses.AddressMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "tournaments.config.urls"
WSGI_APPLICATION = "tournaments.config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournaments.web.context.game_menu",
            ],
        },
    },
]

# SQLite in var/ by default; PostgreSQL with DATABASE_URL=postgres://USER@HOST:PORT/NAME.
# SQLite takes concurrent writers (web and workers) in WAL mode, each transaction taking the
# write lock at its start and waiting up to SQLITE_BUSY_TIMEOUT seconds for it.
DATABASES = {
    "default": env_database(
        "DATABASE_URL",
        f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}",
        sqlite_busy_timeout=env_float("SQLITE_BUSY_TIMEOUT", 30.0),
    ),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Several test sessions may share one server: each gets its own test database.
    DATABASES["default"]["TEST"] = {
        "NAME": env_str("DATABASE_TEST_NAME", f"test_{DATABASES['default']['NAME']}_{os.getpid()}")
    }

MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "var" / "media")))
MEDIA_URL = "media/"

# How bots run: "docker" (isolated; production) or "local" (child processes, NOT secure).
JUDGE_SANDBOX = env_choice("JUDGE_SANDBOX", "docker", ("docker", "local"))
# House bots run in that sandbox like uploaded bots ("sandbox": same clocks and costs), or
# are called inside the worker ("inprocess": faster, for development).
JUDGE_HOUSE_BOTS = env_choice("JUDGE_HOUSE_BOTS", "sandbox", ("sandbox", "inprocess"))
# A match's containers (docs/sandbox.md, "Lifecycle"): "pool" keeps the bots'
# containers across matches, a fresh process per seating, no container serving two
# seatings of one match (JUDGE_SANDBOX_POOL_SIZE, JUDGE_SANDBOX_POOL_IDLE_SECONDS bound
# it); "warm" starts each seating's containers while the one before plays and removes them
# in the background; "fresh" starts and removes each seating's in its turn; "reuse": one
# container per bot per match (docs/sandbox.md lists what it leaks).
JUDGE_SANDBOX_LIFECYCLE = env_choice(
    "JUDGE_SANDBOX_LIFECYCLE", "pool", ("pool", "warm", "fresh", "reuse")
)
# This deployment's name on a shared Docker engine: the prefix of its bot containers'
# labels. Empty: derived from the database (tournaments.play.instance). Same on all its workers.
JUDGE_INSTANCE = env_str("JUDGE_INSTANCE", "")
if JUDGE_INSTANCE and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}", JUDGE_INSTANCE):
    raise SettingError(
        f"JUDGE_INSTANCE={JUDGE_INSTANCE!r}: expected up to 40 letters, digits, '_', '.' or '-'"
    )

# Celery. Tasks go to the broker and workers play them; no web request plays a match.
# CELERY_TASK_ALWAYS_EAGER=true runs each task at once in the sending process: for the
# tests only (pyproject's pytest env), never in a served process (tournaments.checks_setup).
# With no broker URL tasks are queued in this process's memory, where no worker sees them.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or "memory://"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_IGNORE_RESULT = True
# A match is acknowledged only once it is stored, and goes back to the queue when the
# worker process dies; each worker holds one message at a time.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Seconds. The hard limit must stay under the broker's visibility timeout, or Redis would
# hand a match still being played to a second worker.
MATCH_TIME_LIMIT = env_int("MATCH_TIME_LIMIT", 1800)
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 7200)
if not 0 < MATCH_TIME_LIMIT < CELERY_VISIBILITY_TIMEOUT:
    raise SettingError(
        f"MATCH_TIME_LIMIT={MATCH_TIME_LIMIT} must be positive and below "
        f"CELERY_VISIBILITY_TIMEOUT={CELERY_VISIBILITY_TIMEOUT}"
    )
CELERY_TASK_TIME_LIMIT = MATCH_TIME_LIMIT
CELERY_TASK_SOFT_TIME_LIMIT = max(1, MATCH_TIME_LIMIT - 30)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
# A worker renews its lease on a match every third of this; the reaper requeues a match
# whose lease ran out, and gives up after MATCH_MAX_ATTEMPTS claims.
MATCH_LEASE_SECONDS = env_float("MATCH_LEASE_SECONDS", 60.0)
MATCH_MAX_ATTEMPTS = env_int("MATCH_MAX_ATTEMPTS", 3)
# A match voided for a host fault (tournaments.play.runner.host_fault: every bot timed out at
# start-up, a house bot faulted) is played again no sooner than this (the host may be busy).
MATCH_VOID_RETRY_SECONDS = env_float("MATCH_VOID_RETRY_SECONDS", 60.0)
REAPER_INTERVAL_SECONDS = env_float("REAPER_INTERVAL_SECONDS", 30.0)
# A queued match not claimed for this long is sent to the broker again (lost messages).
MATCH_REQUEUE_AFTER_SECONDS = env_float("MATCH_REQUEUE_AFTER_SECONDS", 900.0)
# A version's check plays further matches (to meet every kind of situation) for up to
# this many times its first round's time (tournaments.play.check_coverage; at most
# EXTRA_MAX_S seconds); 0 plays the first round only. The tests lower it (pyproject.toml).
CHECK_FURTHER_SHARE = env_float("CHECK_FURTHER_SHARE", 2.0)
if CHECK_FURTHER_SHARE < 0:
    raise SettingError(f"CHECK_FURTHER_SHARE must be 0 or more, not {CHECK_FURTHER_SHARE}")
for _name, _value in [
    ("MATCH_LEASE_SECONDS", MATCH_LEASE_SECONDS),
    ("MATCH_MAX_ATTEMPTS", MATCH_MAX_ATTEMPTS),
    ("REAPER_INTERVAL_SECONDS", REAPER_INTERVAL_SECONDS),
    ("MATCH_REQUEUE_AFTER_SECONDS", MATCH_REQUEUE_AFTER_SECONDS),
]:
    if _value <= 0:
        raise SettingError(f"{_name}={_value}: must be positive")
CELERY_BEAT_SCHEDULE = {
    "reap-expired-leases": {
        "task": "tournaments.tasks.reap_matches",
        "schedule": REAPER_INTERVAL_SECONDS,
    },
}

QUEUES = ("interactive", "tournaments")
# A person's table (tournaments.play.human_match, docs/tournaments.md "Tables") is played on
# a queue of its own by a worker of its own (scripts/run and docker-compose.yml start it:
# `celery -A tournaments worker -Q tables --pool threads --concurrency TABLE_SLOTS`), a thread
# per table: a person's think time costs no CPU and holds none of the processes above, which
# never take a table. At most TABLE_SLOTS tables are live (queued or being played) at once,
# one per person; past that, "all tables are busy". A worker started without -Q consumes
# QUEUES only (tournaments.play.table_worker).
TABLES_QUEUE = "tables"
TABLE_SLOTS = env_int("TABLE_SLOTS", 8)
if TABLE_SLOTS < 0:
    raise SettingError(f"TABLE_SLOTS={TABLE_SLOTS}: must not be negative (0: no tables)")
# The scheduler (tournaments.play.dispatch, docs/deploy.md). Every kind of work waits in the
# database and is sent as processes free: checks and quick matches ("interactive", served
# first, persons in turn: the SHARE_* settings below) on the interactive queue, then
# tournament matches (owners in turn) and, in what nobody else wants, ladder matches on the
# tournaments queue. The capacity is what the live workers announce (each every
# WORKER_HEARTBEAT_SECONDS; one not heard from for 3 beats is gone); batch work
# (tournaments, duels, ladder) leaves INTERACTIVE_RESERVE processes idle but always may
# hold BATCH_SHARE, and one person's interactive work holds at most half of the rest (or
# INTERACTIVE_OWNER_CAP). TOURNAMENT_SLOTS and LADDER_SLOTS are optional caps (0: none).
# Each queue has its own exchange and routing key: bound to one default exchange, both
# queues would receive a copy of every message.
CELERY_TASK_QUEUES = tuple(
    Queue(name, Exchange(name), routing_key=name) for name in (*QUEUES, TABLES_QUEUE)
)
CELERY_TASK_DEFAULT_QUEUE = CELERY_TASK_DEFAULT_EXCHANGE = "interactive"
CELERY_TASK_DEFAULT_ROUTING_KEY = "interactive"
WORKER_HEARTBEAT_SECONDS = env_float("WORKER_HEARTBEAT_SECONDS", 5.0)
INTERACTIVE_RESERVE = env_int("INTERACTIVE_RESERVE", 1)
INTERACTIVE_OWNER_CAP = env_int("INTERACTIVE_OWNER_CAP", 0)  # 0: half of what is not reserved
TOURNAMENT_SLOTS = env_int("TOURNAMENT_SLOTS", 0)
# A duplicate match's rotations played on different hosts, so that no host's kernel caches
# carry a deal from one rotation to the next (issue 43, docs/fair-play.md): "auto" cuts a
# duplicate match's seatings into as many parts as there are live worker hosts (at most
# one per seating), each part claimed, leased and played on a host of its own, whenever
# two hosts or more are live; "off" plays every match whole. On one host splitting cannot
# help, so it never happens there. WORKER_HOST names this worker's host (empty: the
# kernel's boot id, which every container of one machine shares: one kernel, one cache).
SPLIT_ROTATIONS_ACROSS_HOSTS = env_choice("SPLIT_ROTATIONS_ACROSS_HOSTS", "auto", ("auto", "off"))
WORKER_HOST = env_str("WORKER_HOST", "")
# Rounds a running duel keeps queued or playing at once (tournaments.competitions.duels):
# 2 plays the next round while the last one's slower match finishes; 1 was the old way.
DUEL_ROUNDS_IN_FLIGHT = env_int("DUEL_ROUNDS_IN_FLIGHT", 2)
if not 1 <= DUEL_ROUNDS_IN_FLIGHT <= 4:
    raise SettingError(f"DUEL_ROUNDS_IN_FLIGHT={DUEL_ROUNDS_IN_FLIGHT}: must be 1 to 4")
# Pairs in a round of a duel whose request names none (the API's and the web's): the test
# looks after every pair whatever the round, so a round is only how many pairs one dispatch
# sends (two matches of that many games); larger rounds spread each match's fixed cost (its
# trip through the broker, its bots' start, its result's writes) over more games, at the
# price of more games played past a decision (docs/duels.md, "Throughput"). 10 was the old way.
DUEL_PAIRS_PER_ROUND = env_int("DUEL_PAIRS_PER_ROUND", 25)
if not 1 <= DUEL_PAIRS_PER_ROUND <= 50:
    raise SettingError(f"DUEL_PAIRS_PER_ROUND={DUEL_PAIRS_PER_ROUND}: must be 1 to 50")
if min(TOURNAMENT_SLOTS, INTERACTIVE_RESERVE, INTERACTIVE_OWNER_CAP) < 0:
    raise SettingError(
        "TOURNAMENT_SLOTS, INTERACTIVE_RESERVE and INTERACTIVE_OWNER_CAP must not be negative"
    )
# Shares by person (tournaments.play.shares, docs/deploy.md "Shares"): accounts seen from one
# network (an IPv4 /SHARE_IPV4_PREFIX, an IPv6 /SHARE_IPV6_PREFIX) in the last
# SHARE_ADDRESS_DAYS are one person; accounts with no accepted bot yet share one pool of
# SHARE_NEWCOMER_SLOTS processes (0: one person's cap); interactive work leaves BATCH_SHARE
# processes to batch work whenever some waits (with more processes than that).
SHARE_IPV4_PREFIX = env_int("SHARE_IPV4_PREFIX", 24)
SHARE_IPV6_PREFIX = env_int("SHARE_IPV6_PREFIX", 64)
SHARE_ADDRESS_DAYS = env_int("SHARE_ADDRESS_DAYS", 30)
SHARE_NEWCOMER_SLOTS = env_int("SHARE_NEWCOMER_SLOTS", 0)
BATCH_SHARE = env_int("BATCH_SHARE", 1)
if not (0 <= SHARE_IPV4_PREFIX <= 32 and 0 <= SHARE_IPV6_PREFIX <= 128):
    raise SettingError("SHARE_IPV4_PREFIX must be 0-32 and SHARE_IPV6_PREFIX 0-128 (bits)")
if min(SHARE_ADDRESS_DAYS, SHARE_NEWCOMER_SLOTS, BATCH_SHARE) < 0:
    raise SettingError(
        "SHARE_ADDRESS_DAYS, SHARE_NEWCOMER_SLOTS and BATCH_SHARE must not be negative"
    )
# A running match's worker looks this often whether it was cancelled (then it stops it and
# removes its bots).
MATCH_WATCH_SECONDS = env_float("MATCH_WATCH_SECONDS", 2.0)
# Each match's wall-clock budget (tournaments.play.clocks): derived from its time control, at
# most this many seconds; the hard limit comes MATCH_BUDGET_GRACE_SECONDS after it.
MATCH_BUDGET_CAP_SECONDS = env_int("MATCH_BUDGET_CAP_SECONDS", 300)
MATCH_BUDGET_GRACE_SECONDS = env_int("MATCH_BUDGET_GRACE_SECONDS", 30)
for _name, _value in [
    ("WORKER_HEARTBEAT_SECONDS", WORKER_HEARTBEAT_SECONDS),
    ("MATCH_WATCH_SECONDS", MATCH_WATCH_SECONDS),
    ("MATCH_BUDGET_CAP_SECONDS", MATCH_BUDGET_CAP_SECONDS),
    ("MATCH_BUDGET_GRACE_SECONDS", MATCH_BUDGET_GRACE_SECONDS),
]:
    if _value <= 0:
        raise SettingError(f"{_name}={_value}: must be positive")
if MATCH_BUDGET_CAP_SECONDS + 2 * MATCH_BUDGET_GRACE_SECONDS >= CELERY_VISIBILITY_TIMEOUT:
    raise SettingError(
        f"MATCH_BUDGET_CAP_SECONDS + 2 x MATCH_BUDGET_GRACE_SECONDS must stay below "
        f"CELERY_VISIBILITY_TIMEOUT={CELERY_VISIBILITY_TIMEOUT}"
    )

# The continuous ladder (tournaments.competitions.ladder, docs/ladder.md): off unless LADDER_ENABLED
# (scripts/run, .env.example and docker-compose turn it on). It plays in the batch capacity
# that no waiting tournament match gets (at most LADDER_SLOTS at once, 0: no cap); beat looks every
# LADDER_INTERVAL_SECONDS; a bot whose rating deviation is at most LADDER_TARGET_DEVIATION
# Elo is settled (it still plays as an opponent of unsettled bots).
LADDER_ENABLED = env_bool("LADDER_ENABLED", False)
LADDER_SLOTS = env_int("LADDER_SLOTS", 0)
LADDER_INTERVAL_SECONDS = env_float("LADDER_INTERVAL_SECONDS", 15.0)
LADDER_TARGET_DEVIATION = env_float("LADDER_TARGET_DEVIATION", 50.0)
# A version whose own faults reach LADDER_FAULT_LIMIT of its last LADDER_FAULT_MATCHES rated
# matches is taken off the ladder (tournaments.competitions.ladder_faults; 0: never).
LADDER_FAULT_LIMIT = env_int("LADDER_FAULT_LIMIT", 3)
LADDER_FAULT_MATCHES = env_int("LADDER_FAULT_MATCHES", 5)
if not 0 <= LADDER_FAULT_LIMIT <= LADDER_FAULT_MATCHES:
    raise SettingError(
        f"LADDER_FAULT_LIMIT={LADDER_FAULT_LIMIT}, LADDER_FAULT_MATCHES={LADDER_FAULT_MATCHES}: "
        "the limit must be between 0 (off) and the number of matches counted"
    )
for _name, _value in [
    ("LADDER_SLOTS", LADDER_SLOTS),
    ("LADDER_INTERVAL_SECONDS", LADDER_INTERVAL_SECONDS),
    ("LADDER_TARGET_DEVIATION", LADDER_TARGET_DEVIATION),
]:
    if _value < 0 or (_name == "LADDER_INTERVAL_SECONDS" and _value == 0):
        raise SettingError(f"{_name}={_value}: must not be negative (the interval positive)")
if LADDER_ENABLED:
    CELERY_BEAT_SCHEDULE["ladder"] = {
        "task": "tournaments.tasks.ladder_tick",
        "schedule": LADDER_INTERVAL_SECONDS,
    }

# Per-user quotas (tournaments.guard.quotas, docs/deploy.md): matches waiting to be played (queued
# or running) over all the user's tournaments, tournaments running at once, quick matches
# and new bot versions an hour. Refused with 429 and Retry-After (API) or a form message.
QUOTA_MATCHES_QUEUED = env_int("QUOTA_MATCHES_QUEUED", 500)
QUOTA_TOURNAMENTS_RUNNING = env_int("QUOTA_TOURNAMENTS_RUNNING", 3)
QUOTA_QUICK_MATCHES_PER_HOUR = env_int("QUOTA_QUICK_MATCHES_PER_HOUR", 60)
QUOTA_UPLOADS_PER_HOUR = env_int("QUOTA_UPLOADS_PER_HOUR", 30)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", "") or BASE_DIR / "staticfiles")
# Static files collected into STATIC_ROOT (the image and scripts/run do so) are served by
# the app server itself, compressed and cached, under WSGI and ASGI alike (docs/deploy.md).
if STATIC_ROOT.is_dir():
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The REST API (tournaments.api; docs/api.md): token and session sign-in, everyone reads
# public information, pages and filters on every list, an OpenAPI schema at /api/schema/.
INSTALLED_APPS += ["rest_framework.authtoken", "django_filters", "drf_spectacular"]
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "tournaments.api.pagination.Pages",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        "uploads": env_str("API_UPLOAD_RATE", "60/hour"),
        "quick_matches": env_str("API_QUICK_MATCH_RATE", "120/hour"),
        "registrations": env_str("API_REGISTRATION_RATE", "30/hour"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Card-game bot judge API",
    "DESCRIPTION": "Upload bots, run tournaments, read matches and leaderboards.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "VersionStatusEnum": "tournaments.models.BotVersion.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "MatchStatusEnum": "tournaments.models.Match.Status",
    },
}
# Bot uploads (tournaments.bots.uploads): the upload, entries in a zip, and bytes unpacked.
BOT_UPLOAD_MAX_BYTES = env_int("BOT_UPLOAD_MAX_BYTES", 1 << 20)
BOT_UPLOAD_MAX_ENTRIES = env_int("BOT_UPLOAD_MAX_ENTRIES", 200)
BOT_UPLOAD_MAX_UNPACKED_BYTES = env_int("BOT_UPLOAD_MAX_UNPACKED_BYTES", 8 << 20)
# Workers also run the check of new bot versions (tournaments.play.version_checks.check_version).
CELERY_IMPORTS = ["tournaments.play.version_checks", "tournaments.play.schedule_builds"]
CELERY_BEAT_SCHEDULE["resend-lost-checks"] = {
    "task": "tournaments.checks.resend_lost_checks",
    "schedule": 300.0,
}
# A started tournament's schedule is written by a task (tournaments.play.schedule_builds);
# one whose task was lost is sent again.
CELERY_BEAT_SCHEDULE["resend-lost-schedules"] = {
    "task": "tournaments.tasks.resend_lost_schedules",
    "schedule": 300.0,
}
# The stored field view (tournaments.rating.stored.field_view, docs/ratings.md): every
# FIELD_PASS_SECONDS beat has each game's whole field refitted where rated matches came
# since its last pass (seconds of a worker process on a big site: on the batch queue).
FIELD_PASS_SECONDS = env_float("FIELD_PASS_SECONDS", 300.0)
if FIELD_PASS_SECONDS <= 0:
    raise SettingError(f"FIELD_PASS_SECONDS={FIELD_PASS_SECONDS}: must be positive")
CELERY_BEAT_SCHEDULE["field-view"] = {
    "task": "tournaments.tasks.refit_fields",
    "schedule": FIELD_PASS_SECONDS,
    "options": {"queue": "tournaments"},
}
# The fair-play audits (tournaments.fairplay, docs/fair-play.md): every
# FAIR_PLAY_AUDIT_SECONDS each game's stored results are audited and its flags refreshed.
FAIR_PLAY_AUDIT_SECONDS = env_float("FAIR_PLAY_AUDIT_SECONDS", 6 * 3600.0)
if FAIR_PLAY_AUDIT_SECONDS <= 0:
    raise SettingError(f"FAIR_PLAY_AUDIT_SECONDS={FAIR_PLAY_AUDIT_SECONDS}: must be positive")
CELERY_IMPORTS.append("tournaments.play.fairplay_tasks")
CELERY_BEAT_SCHEDULE["fair-play"] = {
    "task": "tournaments.tasks.audit_fair_play",
    "schedule": FAIR_PLAY_AUDIT_SECONDS,
    "options": {"queue": "tournaments"},
}

# Housekeeping (tournaments.play.housekeeping, docs/deploy.md "What grows"): every
# HOUSEKEEPING_SECONDS beat prunes the sign-in log (django-axes' AccessLog, a row per
# sign-in) to its last SIGNIN_LOG_DAYS days, failure counts past their lockout and
# expired sessions (SESSION_COOKIE_AGE, Django's two weeks, after their last use).
HOUSEKEEPING_SECONDS = env_float("HOUSEKEEPING_SECONDS", 3600.0)
SIGNIN_LOG_DAYS = env_int("SIGNIN_LOG_DAYS", 90)
if HOUSEKEEPING_SECONDS <= 0 or SIGNIN_LOG_DAYS < 1:
    raise SettingError("HOUSEKEEPING_SECONDS and SIGNIN_LOG_DAYS must be positive")
CELERY_IMPORTS.append("tournaments.play.housekeeping")
CELERY_BEAT_SCHEDULE["housekeeping"] = {
    "task": "tournaments.tasks.housekeeping",
    "schedule": HOUSEKEEPING_SECONDS,
}

# Abuse limits (docs/deploy.md, "Limits"): request size, rate limits, sign-in lockout.
# A request body over REQUEST_MAX_BYTES is refused (413) before anything reads it; files
# stay in memory, cut one byte past BOT_UPLOAD_MAX_BYTES (tournaments.guard.requestlimits).
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", BOT_UPLOAD_MAX_BYTES + (256 << 10))
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES
FILE_UPLOAD_HANDLERS = ["tournaments.guard.requestlimits.CappedMemoryUploadHandler"]
MIDDLEWARE.insert(0, "tournaments.guard.requestlimits.RequestSizeMiddleware")
MIDDLEWARE.insert(
    1, "tournaments.guard.queryparams.BadParameterMiddleware"
)  # 400 naming a bad parameter
# Content-Security-Policy on every answer (django-csp): scripts, styles, fonts and frames
# from this site only; no inline script runs, no plug-in loads, no other site frames a page.
# Outermost, so the answers made before the views (413 and 411 for a body, 400 for a bad
# parameter, WhiteNoise's static files) carry it too; the ASGI guard adds it to its own.
MIDDLEWARE.insert(0, "csp.middleware.CSPMiddleware")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# Proxies in front of the site that append to X-Forwarded-For (0: use the peer address).
TRUSTED_PROXIES = env_int("DJANGO_TRUSTED_PROXIES", 0)
REST_FRAMEWORK["NUM_PROXIES"] = TRUSTED_PROXIES
REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"] = [
    "tournaments.api.parsers.BoundedJSONParser",
    "rest_framework.parsers.FormParser",
    "rest_framework.parsers.MultiPartParser",
]
if REQUEST_MAX_BYTES <= BOT_UPLOAD_MAX_BYTES or TRUSTED_PROXIES < 0:
    raise SettingError(
        f"REQUEST_MAX_BYTES={REQUEST_MAX_BYTES} must be above BOT_UPLOAD_MAX_BYTES (room for "
        "the form around the file), and DJANGO_TRUSTED_PROXIES must not be negative"
    )
for _scope, _rate in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"].items():  # type: ignore[attr-defined]
    if not re.fullmatch(r"\d+/(s|m|h|d|second|minute|hour|day)", _rate):
        raise SettingError(f"the {_scope} rate {_rate!r}: write NUMBER/second|minute|hour|day")
# Passwords: at least PASSWORD_MIN_LENGTH characters, not common, not all digits, not
# like the user name.
PASSWORD_MIN_LENGTH = env_int("PASSWORD_MIN_LENGTH", 10)
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": PASSWORD_MIN_LENGTH},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sign-in lockout (django-axes) on every sign-in path: the web page, the admin, the API
# token and the API's session sign-in. After LOGIN_FAILURE_LIMIT failures the client is
# refused (429) for LOGIN_LOCKOUT_MINUTES. LOGIN_LOCKOUT_BY: comma-separated groups, each
# a '+'-joined set of username, ip_address, user_agent (a group's values counted together).
# The default counts a user name from one address, and one address across every user name
# (so one address cannot spray a password over many names; docs/deploy.md, "Limits").
INSTALLED_APPS += ["axes"]
MIDDLEWARE.append("axes.middleware.AxesMiddleware")
AUTHENTICATION_BACKENDS = [
    "tournaments.guard.lockout.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = env_float("LOGIN_LOCKOUT_MINUTES", 15.0) / 60
AXES_LOCKOUT_PARAMETERS: list[str | list[str]] = [
    group.split("+") if "+" in group else group
    for group in env_list("LOGIN_LOCKOUT_BY", ["username+ip_address", "ip_address"])
]
AXES_CLIENT_IP_CALLABLE = "tournaments.guard.clients.client_address"
# A sign-in forgets only its own name's failures from its address (guard.lockout): axes'
# reset would forget the address's failures at every other name too.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "tournaments.guard.lockout.locked_out"
AXES_VERBOSE = False
for _group in AXES_LOCKOUT_PARAMETERS:
    for _part in [_group] if isinstance(_group, str) else _group:
        if _part not in ("username", "ip_address", "user_agent"):
            raise SettingError(
                f"LOGIN_LOCKOUT_BY: {_part!r}: expected username, ip_address or user_agent, "
                "joined by '+' within a group and ',' between groups"
            )
if AXES_FAILURE_LIMIT < 1 or AXES_COOLOFF_TIME <= 0:
    raise SettingError("LOGIN_FAILURE_LIMIT and LOGIN_LOCKOUT_MINUTES must be positive")
# The lockout lasts LOGIN_LOCKOUT_MINUTES from the failure that reached the limit.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False

# Replays (scale, tournaments.play.replay_store): each match record is a gzip file kept through
# Django's storage API, in REPLAY_ROOT with the default FileSystemStorage. REPLAY_STORAGE
# names another storage class (e.g. storages.backends.s3.S3Storage from django-storages,
# configured by its own settings), made with no arguments.
REPLAY_STORAGE = env_str("REPLAY_STORAGE", "django.core.files.storage.FileSystemStorage")
REPLAY_ROOT = MEDIA_ROOT / "replays"
# Backups (tournaments.play.backups, docs/deploy.md "Backups"): the pg_dump and
# pg_restore that manage.py backup / restore run: programs here, or commands that run them
# elsewhere (the stack's: "docker exec -i CONTAINER pg_dump -U judge -d judge").
BACKUP_PG_DUMP = env_str("BACKUP_PG_DUMP", "pg_dump")
BACKUP_PG_RESTORE = env_str("BACKUP_PG_RESTORE", "pg_restore")
# A replay store that worker hosts share over SFTP (docs/deploy.md, "Workers on several
# machines"): REPLAY_STORAGE=storages.backends.sftpstorage.SFTPStorage (django-storages)
# and these. The server's host key must be listed in SFTP_KNOWN_HOST_FILE: a host that
# shows another key is refused.
SFTP_STORAGE_HOST = env_str("SFTP_STORAGE_HOST", "")
SFTP_STORAGE_ROOT = env_str("SFTP_STORAGE_ROOT", "")
SFTP_KNOWN_HOST_FILE = env_str("SFTP_KNOWN_HOST_FILE", "")
SFTP_STORAGE_PARAMS: dict[str, Any] = {
    "port": env_int("SFTP_STORAGE_PORT", 22),
    "username": env_str("SFTP_STORAGE_USER", "") or None,
    "key_filename": env_str("SFTP_STORAGE_KEY_FILE", "") or None,
    "look_for_keys": False,
    "allow_agent": False,
    "timeout": 10,
}
if REPLAY_STORAGE.endswith("SFTPStorage") and not (
    SFTP_STORAGE_HOST and SFTP_STORAGE_ROOT and SFTP_KNOWN_HOST_FILE
):
    raise SettingError(
        "REPLAY_STORAGE is SFTP: set SFTP_STORAGE_HOST, SFTP_STORAGE_ROOT (an absolute folder "
        "on it) and SFTP_KNOWN_HOST_FILE (a known_hosts file listing its host key)"
    )

# The Redis that carries live tables: a person's seat (tournaments.play.human_seat) and
# the public feed of running matches (tournaments.play.live_feed). By default the broker's
# Redis; empty (a memory broker) turns both off: nobody can sit at a table then.
JUDGE_TABLE_REDIS_URL = env_str("JUDGE_TABLE_REDIS_URL", "") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis", "unix")) else ""
)

# Logging: everything the service says goes to standard error, where gunicorn, Celery and
# compose collect it. Without this, Django sends a request's traceback only to the admins'
# e-mail (none is configured) when debug is off, so a server error left no trace at all.
LOG_LEVEL = env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR"))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(process)d: %(message)s"},
    },
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    # Django's loggers (server errors with their tracebacks, refused requests) and the
    # service's own reach the root's handler; a Celery worker puts its own handler there.
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {name: {"level": LOG_LEVEL} for name in ("tournaments", "judge", "sandbox")},
}

# Operators (docs/deploy.md, "Metrics and health"): /metrics answers a staff member's
# session, or a request with "Authorization: Bearer METRICS_TOKEN" (empty: staff only);
# its waits are those of the work begun in the last METRICS_WAIT_WINDOW_SECONDS. /health
# answers anyone (200 or 503) and gives the reasons to the same readers as /metrics.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
METRICS_WAIT_WINDOW_SECONDS = env_int("METRICS_WAIT_WINDOW_SECONDS", 900)
if METRICS_WAIT_WINDOW_SECONDS < 1 or (METRICS_TOKEN and len(METRICS_TOKEN) < 16):
    raise SettingError(
        "METRICS_WAIT_WINDOW_SECONDS must be positive, and METRICS_TOKEN at least 16 "
        "characters (e.g. python -c 'import secrets; print(secrets.token_urlsafe())')"
    )
