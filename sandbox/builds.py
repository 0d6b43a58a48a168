"""Compiling a bot once, in a hardened throw-away container, and keeping the result.

A build container is a bot container with a compiler's budget (``BuildLimits``): no
network, read-only root, all capabilities dropped, the sandbox's seccomp profile, the
``nobody`` user, the source read-only in ``/bot``, the only writable places ``/tmp`` and
the output folder ``/build``. The compiler's messages are cut at ``log_bytes``; a build
that runs over its wall clock is killed; one whose output is over ``output_bytes`` is
rejected. Each of those, and a compiler error, is a ``BuildFailed`` carrying the
compiler's messages (file and line) for the bot's owner.

The result is a tar archive ready to put into a bot container's ``/bot``, stored under
the hash of what went in (runtime, image, flags, sources): content-addressed, so every
match of a bot version reuses one build, and two workers building the same code at once
both store the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import docker.errors
import requests
from docker.models.containers import Container

from sandbox.runtimes import BUILD_DIR, BotBuild, BuildFailed

STATUS_FILE: Final = ".status"
LOG_FILE: Final = ".log"


@dataclass(frozen=True)
class BuildLimits:
    """A compiler's budget: far more than a bot's, still bounded."""

    memory_mb: int = 1024
    cpus: float = 1.0
    pids: int = 128
    wall_clock_s: float = 120.0
    tmp_mb: int = 256
    output_bytes: int = 64 << 20
    log_bytes: int = 64 << 10


def build_key(wanted: BotBuild, image_id: str, source: bytes) -> str:
    """The content address of a build: everything that decides its output."""
    digest = hashlib.sha256()
    for part in (wanted.runtime.name, wanted.runtime.compile, image_id, *wanted.flags):
        digest.update(part.encode() + b"\0")
    digest.update(hashlib.sha256(source).digest())
    return digest.hexdigest()


class BuildStore:
    """Built artefacts as files named by their key, in one folder (default: a per-user
    folder in the temporary directory, or JUDGE_BUILD_CACHE)."""

    def __init__(self, folder: Path | None = None) -> None:
        default = Path(tempfile.gettempdir()) / f"cardjudge-builds-{os.getuid()}"
        self.folder = folder or Path(os.environ.get("JUDGE_BUILD_CACHE") or default)

    def get(self, key: str) -> bytes | None:
        with contextlib.suppress(FileNotFoundError):
            return (self.folder / f"{key}.tar").read_bytes()
        return None

    def put(self, key: str, artefact: bytes) -> None:
        """Store atomically (write aside, then rename): readers never see half a file."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.NamedTemporaryFile(dir=self.folder, delete=False) as aside:
            aside.write(artefact)
        os.replace(aside.name, self.folder / f"{key}.tar")


def run_build(client: Any, settings: dict[str, Any], source: bytes, limits: BuildLimits) -> bytes:
    """Compile ``source`` (a tar for /bot) in a container made from ``settings``; return
    the artefact archive or raise BuildFailed."""
    container: Container = client.containers.create(**settings)
    try:
        container.put_archive("/bot", source)
        container.start()
        try:
            container.wait(timeout=limits.wall_clock_s)
        except (requests.exceptions.ConnectionError, requests.exceptions.ReadTimeout):
            with contextlib.suppress(docker.errors.DockerException):
                container.kill()
            raise BuildFailed(
                f"the build ran over its time limit ({limits.wall_clock_s:g} s) and was stopped"
            ) from None
        container.reload()
        out_of_memory = container.attrs["State"].get("OOMKilled", False)
        files = _fetch(container, limits)
    finally:
        with contextlib.suppress(docker.errors.NotFound):
            container.remove(force=True, v=True)
    return _artefact(files, out_of_memory, limits)


def _fetch(container: Container, limits: BuildLimits) -> dict[str, tuple[tarfile.TarInfo, bytes]]:
    """The build folder's files (mode and bytes), refusing more than the output cap."""
    stream, _ = container.get_archive(BUILD_DIR)
    cap = limits.output_bytes + limits.log_bytes + (1 << 20)  # room for tar headers
    data = bytearray()
    for chunk in stream:
        data += chunk
        if len(data) > cap:
            raise BuildFailed(
                f"the build produced more than {limits.output_bytes >> 20} MiB; rejected"
            )
    files = {}
    with tarfile.open(fileobj=io.BytesIO(bytes(data))) as archive:
        for info in archive:
            name = info.name.partition("/")[2]
            if not name:
                continue
            body = archive.extractfile(info) if info.isfile() else None
            files[name] = (info, body.read() if body else b"")
    return files


def _artefact(
    files: dict[str, tuple[tarfile.TarInfo, bytes]], out_of_memory: bool, limits: BuildLimits
) -> bytes:
    log = files.pop(LOG_FILE, (None, b""))[1].decode("utf-8", "replace")
    status = files.pop(STATUS_FILE, (None, b""))[1].decode().strip()
    if out_of_memory:
        raise BuildFailed(f"the compiler ran out of memory ({limits.memory_mb} MiB)", log)
    if status != "0":
        why = f"exit status {status}" if status else "it was killed"
        raise BuildFailed(f"the bot does not compile ({why})", log)
    return _pack(files.items())


def _pack(entries: Iterator[tuple[str, tuple[tarfile.TarInfo, bytes]]] | Any) -> bytes:
    """Files and folders only, owned by root, read-only (executables kept executable)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, (info, body) in sorted(entries):
            entry = tarfile.TarInfo(name)
            entry.uid = entry.gid = 0
            if info.isdir():
                entry.type, entry.mode = tarfile.DIRTYPE, 0o555
                archive.addfile(entry)
            elif info.isfile():
                entry.size, entry.mode = len(body), 0o555 if info.mode & 0o100 else 0o444
                archive.addfile(entry, io.BytesIO(body))
    return buffer.getvalue()


def command(wanted: BotBuild, limits: BuildLimits) -> list[str]:
    """The build's command: the runtime's compile line, its messages cut at the cap (and
    drained, so a chatty compiler is not killed by a closed pipe), its status kept."""
    compile_line = wanted.runtime.compile_line(BUILD_DIR)
    script = (
        f"{{ {compile_line} ; echo $? >{BUILD_DIR}/{STATUS_FILE}; }} 2>&1 "
        f"| {{ head -c {limits.log_bytes}; cat >/dev/null; }} >{BUILD_DIR}/{LOG_FILE}"
    )
    return ["sh", "-c", script, "build", *wanted.flags]
