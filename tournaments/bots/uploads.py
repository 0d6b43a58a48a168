"""Turning an uploaded file into a bot's files, refusing anything unsafe before it is stored.

A bot is one ``.py`` file (it becomes ``main.py``), one file named like an entry file of
another language (``main.cpp``, ``Main.java``: ``sandbox.runtimes``), or a zip with an
entry file at its top (or inside a single top folder) and maybe a ``bot.json``. The
archive is read entry by entry with caps on the upload's size, the number of entries and
the bytes it unpacks to, counted while decompressing (a zip's own size fields are not
trusted). Absolute paths, ``..``, links, device files,
encrypted entries and names that are not UTF-8 are refused. Every refusal is an
``UploadError`` whose message says what was wrong; nothing is written anywhere here.
"""

from __future__ import annotations

import io
import stat
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings

from sandbox.runtimes import BOT_JSON, BY_ENTRY, BadBotCode, detect_files
from tournaments.models import bundle_code

#: Defaults of the limits (settings BOT_UPLOAD_MAX_BYTES etc. override them).
MAX_UPLOAD_BYTES = 1 << 20
MAX_ENTRIES = 200
MAX_UNPACKED_BYTES = 8 << 20
#: Longest entry name, and deepest folder nesting, in a zip.
MAX_NAME_CHARS = 200
MAX_DEPTH = 16
ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"


class UploadError(ValueError):
    """An upload that cannot become a bot version; the message says why and what to do."""


class UploadTooLarge(UploadError):
    """The upload itself is over the size limit (HTTP 413 rather than 400)."""


@dataclass(frozen=True)
class Limits:
    upload_bytes: int
    entries: int
    unpacked_bytes: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(
            getattr(settings, "BOT_UPLOAD_MAX_BYTES", MAX_UPLOAD_BYTES),
            getattr(settings, "BOT_UPLOAD_MAX_ENTRIES", MAX_ENTRIES),
            getattr(settings, "BOT_UPLOAD_MAX_UNPACKED_BYTES", MAX_UNPACKED_BYTES),
        )


@dataclass(frozen=True)
class Bundle:
    """A checked upload: the deterministic zip to store and its content hash."""

    files: dict[str, bytes]
    code: bytes
    content_hash: str


def read_upload(filename: str, data: bytes, limits: Limits | None = None) -> Bundle:
    """The bot files in an upload named ``filename``, or UploadError saying what is wrong."""
    limits = limits or Limits.from_settings()
    if len(data) > limits.upload_bytes:
        raise UploadTooLarge(
            f"the upload is {len(data)} bytes; the limit is {limits.upload_bytes} bytes"
        )
    if not data:
        raise UploadError(f"the upload is empty; send {accepted_files()}")
    base = PurePosixPath(filename.replace("\\", "/")).name
    if data.startswith((ZIP_MAGIC, EMPTY_ZIP_MAGIC)):
        files = read_zip(data, limits)
    elif filename.lower().endswith(".zip"):
        raise UploadError(f"{filename!r} is not a zip archive (its first bytes are wrong)")
    elif filename.lower().endswith(".py"):
        check_python("main.py", data)
        files = {"main.py": data}
    elif base in BY_ENTRY:
        check_text(base, data)
        files = {base: data}
    elif PurePosixPath(base.lower()).suffix in BY_SUFFIX:
        entry = BY_SUFFIX[PurePosixPath(base.lower()).suffix]
        check_text(entry, data)
        files = {entry: data}  # any name, as for Python: stored as the entry file
    else:
        raise UploadError(f"cannot tell what {filename!r} is: upload {accepted_files()}")
    check_build(files)
    code, digest = bundle_code(files)
    return Bundle(files, code, digest)


#: A single file's suffix -> the entry file it is stored as, for the languages whose
#: entry may have any name (Java's may not: javac wants its public class Main in
#: Main.java, so a Java bot is uploaded as Main.java, or zipped).
BY_SUFFIX: dict[str, str] = {
    PurePosixPath(entry).suffix: entry for entry in BY_ENTRY if entry != "Main.java"
}


def accepted_files() -> str:
    """What an upload may be, in words (the form's help and the refusal both say it)."""
    suffixes = ", ".join(sorted(BY_SUFFIX))
    return (
        f"one source file (any name ending {suffixes}; Java: Main.java) "
        "or a .zip with its entry file at its top"
    )


def check_build(files: dict[str, bytes]) -> None:
    """What the check would find first, found now: a bot.json that is not JSON, names an
    unknown language or flags not allowed, or no entry file (sandbox.runtimes decides)."""
    try:
        detect_files(list(files), files.get(BOT_JSON))
    except BadBotCode as error:
        raise UploadError(str(error)) from None


def check_text(name: str, source: bytes) -> str:
    """The source as text; UploadError for a binary file (not UTF-8, or NUL bytes)."""
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UploadError(
            f"{name} is not UTF-8 text (bad byte at offset {error.start}); "
            "upload source code, not a binary file"
        ) from None
    if "\0" in text:
        raise UploadError(f"{name} contains NUL bytes; upload source code, not a binary file")
    return text


def check_python(name: str, source: bytes) -> None:
    """Refuse a Python file that is not UTF-8 text or does not even parse."""
    text = check_text(name, source)
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise UploadError(f"{name} line {error.lineno}: syntax error: {error.msg}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as error:
        # Expressions nested or chained past the compiler's limits (``1+`` x 300,000).
        raise UploadError(
            f"{name} cannot be compiled: it nests or chains expressions too deeply "
            f"({type(error).__name__}); split them up"
        ) from None


def read_zip(data: bytes, limits: Limits) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, UnicodeDecodeError, ValueError) as error:
        raise UploadError(f"the zip archive cannot be read: {error}") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > limits.entries:
            raise UploadError(
                f"the zip holds {len(entries)} entries; the limit is {limits.entries}"
            )
        files: dict[str, bytes] = {}
        budget = limits.unpacked_bytes
        for info in entries:
            name = entry_name(info)
            if info.is_dir():
                continue
            if name in files:
                raise UploadError(f"the zip holds {name!r} twice")
            files[name] = read_entry(archive, info, name, budget, limits)
            budget -= len(files[name])
    check_no_file_is_a_folder(files)
    files = strip_top_folder(files)
    if not any(entry in files for entry in BY_ENTRY):
        raise UploadError(
            "the zip has no entry file at its top; the bot starts from one of "
            f"{', '.join(BY_ENTRY)}"
        )
    for name, content in files.items():
        if name.endswith(".py"):
            check_python(name, content)
    return files


def check_no_file_is_a_folder(files: dict[str, bytes]) -> None:
    """``lib`` and ``lib/util.py`` cannot both be unpacked: refuse such an archive."""
    for name in files:
        for parent in PurePosixPath(name).parents:
            if str(parent) in files:
                raise UploadError(f"the zip holds {str(parent)!r} both as a file and a folder")


def entry_name(info: zipfile.ZipInfo) -> str:
    """The entry's path, checked: UTF-8, relative, no ``..``, a plain file or folder."""
    raw = info.orig_filename
    if not info.flag_bits & 0x800:  # no UTF-8 flag: zipfile decoded the bytes as cp437
        try:
            raw = raw.encode("cp437").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            raise UploadError(
                f"the zip entry name {info.orig_filename!r} is not valid UTF-8"
            ) from None
    if any(ord(c) < 32 or c == "\x7f" for c in raw) or "\\" in raw:
        raise UploadError(f"the zip entry name {raw!r} holds a control character or a backslash")
    path = PurePosixPath(raw)
    if not path.parts and not info.is_dir():
        raise UploadError("a zip entry has an empty name")
    if len(raw) > MAX_NAME_CHARS or len(path.parts) > MAX_DEPTH:
        raise UploadError(
            f"the zip entry name {raw[:60]!r}... is too long or too deep "
            f"(at most {MAX_NAME_CHARS} characters, {MAX_DEPTH} folders)"
        )
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise UploadError(f"the zip entry {raw!r} has an absolute path; use relative paths")
    if ".." in path.parts:
        raise UploadError(f"the zip entry {raw!r} climbs out of its folder with '..'")
    if info.flag_bits & 0x1:
        raise UploadError(f"the zip entry {raw!r} is encrypted; upload it without a password")
    mode = info.external_attr >> 16  # Unix mode; its file type is 0 when the zipper left it out
    if stat.S_ISLNK(mode):
        raise UploadError(f"the zip entry {raw!r} is a symbolic link; only files are allowed")
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise UploadError(
            f"the zip entry {raw!r} is a device, pipe or socket; only files are allowed"
        )
    return str(path)


def read_entry(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, budget: int, limits: Limits
) -> bytes:
    """The entry's bytes, decompressed at most ``budget`` (+1) bytes far."""
    if info.file_size > budget:
        raise too_big(name, limits)
    try:
        with archive.open(info) as stream:
            content = stream.read(budget + 1)
    except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError) as error:
        raise UploadError(f"the zip entry {name!r} cannot be read: {error}") from None
    if len(content) > budget:
        raise too_big(name, limits)
    return content


def too_big(name: str, limits: Limits) -> UploadError:
    return UploadError(
        f"the zip unpacks to more than {limits.unpacked_bytes} bytes (at {name!r}); "
        "upload a smaller bot (is it a zip bomb?)"
    )


def strip_top_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """``bot/main.py`` and friends become ``main.py`` when everything sits in one folder."""
    if any(entry in files for entry in BY_ENTRY) or not files:
        return files
    tops = {name.split("/", 1)[0] for name in files}
    if len(tops) != 1 or any("/" not in name for name in files):
        return files
    return {name.split("/", 1)[1]: content for name, content in files.items()}
