"""The name of this deployment on a Docker engine it may share with others.

Bot containers are labelled ``<instance>-match-<id>-bot<i>``: match ids restart in every
database, so two services on one engine (or a test database and a development one) would
otherwise label their containers alike, and ``remove_containers --all`` of one would
remove the other's live bots.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from django.conf import settings
from django.db import connection


def judge_instance() -> str:
    """JUDGE_INSTANCE if set, else a name derived from the database in use right now
    (the test database while tests run, so tests never share a name with development)."""
    configured: str = settings.JUDGE_INSTANCE
    return configured or derived_instance(connection.settings_dict)


def derived_instance(database: Mapping[str, Any]) -> str:
    """A readable part of the database's name and a digest of its engine, host, port and
    name: the same for every worker of one deployment, different between databases."""
    engine = str(database.get("ENGINE") or "")
    name = str(database.get("NAME") or "")
    where = f"{engine}|{database.get('HOST') or ''}|{database.get('PORT') or ''}|{name}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:10]
    readable = PurePath(name).stem if engine.endswith("sqlite3") else name
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", readable).strip("-.")[:24] or "db"
    return f"{readable}-{digest}"
