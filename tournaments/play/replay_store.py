"""Match records (replays) kept outside the match row: gzip files through Django's storage API.

A record is 5-120 KB of JSON that only the replay views read; in the match row it made every
match query drag it along. Here it is one gzip file per match (a few hundred bytes to a
few KB), named in a ``Replay`` row; REPLAY_STORAGE chooses where the files live (the
filesystem by default, S3-compatible object storage with django-storages). The replay
viewer's frames are computed once per game and seat and kept beside the record, so a
replay view does not play the game again on every request. Files go when their match
does (``delete_files`` runs after the deleting transaction commits).
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import secrets
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, Storage
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string

from tournaments.models import Replay

JSON = "application/json"

logger = logging.getLogger(__name__)


def replay_storage() -> Storage:
    """The storage REPLAY_STORAGE names (the filesystem in REPLAY_ROOT by default). One
    per process for the filesystem; one per thread for a remote store (an SFTP session or
    an HTTP client is one connection, which the web's threads must not share)."""
    kind = import_string(settings.REPLAY_STORAGE)
    if issubclass(kind, FileSystemStorage):
        return _filesystem(kind, str(settings.REPLAY_ROOT))
    kept: dict[str, Storage] = _threads.__dict__.setdefault("stores", {})
    if settings.REPLAY_STORAGE not in kept:
        kept[settings.REPLAY_STORAGE] = kind()
    return kept[settings.REPLAY_STORAGE]


_threads = threading.local()


@cache
def _filesystem(kind: type[FileSystemStorage], root: str) -> Storage:
    return kind(location=root)


def compress(data: Any) -> bytes:
    """``data`` as compact JSON, gzipped (no timestamp: the same data, the same bytes)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    return gzip.compress(text, compresslevel=6, mtime=0)


def stored_replay(match_id: int, record: dict[str, Any]) -> Replay:
    """Write the record's file and return its (unsaved) row; the caller saves it."""
    data = compress(record)
    folder = f"{match_id // 1000:06d}"
    wanted = f"{folder}/{match_id}-{secrets.token_hex(6)}.json.gz"
    storage = replay_storage()
    name = storage.save(wanted, ContentFile(data))
    give_to_root_owner(storage, name)
    games = record.get("games", [])
    players = max((len(g.get("seating", [])) for g in games), default=0)
    return Replay(match_id=match_id, name=name, size=len(data), games=len(games), players=players)


def give_to_root_owner(storage: Storage, name: str) -> None:
    """A file saved by root goes, with its folder, to the owner of the store's root (or of
    the nearest folder above it that is not root's: the media volume, when a worker made
    the replay folder itself). On the compose stack the workers run as root and the web
    as the app's user: a replay folder left root's kept the web from saving the viewer's
    frames beside its replays (500). Not root, or not a local folder: nothing to do."""
    if os.geteuid() != 0 or not isinstance(storage, FileSystemStorage):
        return
    root = Path(storage.location)
    owner = next((os.stat(p) for p in (root, *root.parents) if os.stat(p).st_uid != 0), None)
    if owner is None:
        return
    path = Path(storage.path(name))
    for made in (path, path.parent, root):  # the store's root too, if root made it
        if os.stat(made).st_uid == 0:
            os.chown(made, owner.st_uid, owner.st_gid)


def compressed(replay: Replay) -> bytes:
    with replay_storage().open(replay.name, "rb") as file:
        data: bytes = file.read()
    return data


def load(replay: Replay) -> dict[str, Any]:
    """The match record, decompressed and parsed."""
    record: dict[str, Any] = json.loads(gzip.decompress(compressed(replay)))
    return record


#: The viewer's frames format: a new one (names, events and outcome in words since 2)
#: computes the frames again instead of serving files kept in an older one.
FRAMES_FORMAT = 2


def frames_name(replay: Replay, game: int, seat: str, form: int = FRAMES_FORMAT) -> str:
    kind = "frames" if form == 1 else f"frames{form}"
    return f"{replay.name.removesuffix('.json.gz')}.{kind}-{game}-{seat}.json.gz"


def cached_frames(
    replay: Replay, game: int, seat: str, compute: Callable[[dict[str, Any]], Any]
) -> bytes:
    """The gzipped frames of ``game`` seen from ``seat``: from their file, or computed from
    the record by ``compute`` and kept for the next request."""
    storage = replay_storage()
    name = frames_name(replay, game, seat)
    if storage.exists(name):
        with storage.open(name, "rb") as file:
            data: bytes = file.read()
        return data
    data = compress(compute(load(replay)))
    try:
        kept = storage.save(name, ContentFile(data))
    except OSError as error:  # a cache that cannot be written must not fail the view
        logger.warning("could not keep the frames %s: %s", name, error)
        return data
    if kept != name:  # another request kept the same frames first: one copy is enough
        storage.delete(kept)
    return data


def delete_files(name: str, games: int, players: int) -> None:
    """Remove a record's file and every frames file it may have."""
    storage = replay_storage()
    stub = Replay(name=name)
    for seat in ["all", *map(str, range(players))]:
        for game in range(games):
            for form in range(1, FRAMES_FORMAT + 1):
                storage.delete(frames_name(stub, game, seat, form))
    storage.delete(name)


def gzip_response(request: HttpRequest, data: bytes) -> HttpResponse:
    """JSON sent as stored, gzipped, to a client that accepts gzip; else decompressed."""
    accepts = request.headers.get("Accept-Encoding", "")
    if "gzip" in accepts.lower():
        response = HttpResponse(data, content_type=JSON)
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(data), content_type=JSON)
    response["Vary"] = "Accept-Encoding"
    return response


def forget_files(sender: type[Replay], instance: Replay, **kwargs: Any) -> None:
    """A deleted replay row (its match deleted, say) takes its files with it, once the
    deletion is committed (a rolled-back deletion keeps them)."""
    name, games, players = instance.name, instance.games, instance.players
    transaction.on_commit(lambda: delete_files(name, games, players))
