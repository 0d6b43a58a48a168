"""A bot's code as the archive put into its container's ``/bot``: owned by root, read-only
for the bot, files and folders only, at most MAX_CODE_BYTES."""

from __future__ import annotations

import io
import stat
import tarfile
from pathlib import Path
from typing import Final

from sandbox.runtimes import BadBotCode

#: Largest bot code accepted (the upload checks its own limits first).
MAX_CODE_BYTES: Final = 64 << 20


def pack_code(code: Path) -> bytes:
    """The bot's folder as a tar archive owned by root and read-only for everyone else.

    Bytecode caches go too: /bot is read-only in the container, so a cache that came
    with the code (house bots' hash-checked one) is the only one Python can use there;
    one that does not match its source (another Python, another version) is ignored.
    """
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for path in sorted(code.rglob("*")):
            info = _entry(code, path)
            total += info.size
            if total > MAX_CODE_BYTES:
                raise BadBotCode(f"bot code in {code} is larger than {MAX_CODE_BYTES} bytes")
            if info.isfile():
                with path.open("rb") as data:
                    archive.addfile(info, data)
            else:
                archive.addfile(info)
    return buffer.getvalue()


def _entry(code: Path, path: Path) -> tarfile.TarInfo:
    mode = path.lstat().st_mode
    info = tarfile.TarInfo(str(path.relative_to(code)))
    if stat.S_ISDIR(mode):
        info.type, info.mode = tarfile.DIRTYPE, 0o555
    elif stat.S_ISREG(mode):
        info.size = path.lstat().st_size
        info.mode = 0o555 if mode & stat.S_IXUSR else 0o444
    else:
        raise BadBotCode(f"bot code may hold only files and folders; {path} is neither")
    info.uid = info.gid = 0
    return info
