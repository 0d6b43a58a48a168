"""The languages a bot may be written in: one table, read by every backend.

A bot folder holds exactly one entry file (``main.py``, ``main.cpp``, ``main.rs``,
``Main.java``, ``main.js`` or ``main.go``); other source files beside it are compiled
with it. An optional ``bot.json`` may name the language (``{"language": "cpp"}``) and
extra compiler flags from the runtime's allowed list (``{"flags": ["-O3"]}``): nothing
else reaches a compiler's command line, so a bot cannot make it read or write files.

Each runtime's image (``cardjudge/runtime-NAME``, built offline by
scripts/build-runtime-images; Python's is the bot image of scripts/build-bot-image)
holds its toolchain. A compiled runtime's ``compile`` is a fixed shell command run in the
bot's read-only folder, writing into its output folder (``BUILD_DIR`` in a container);
the bot then runs in the build's output folder (see ``sandbox.builds``).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: Where a compiler writes its output (the only writable folder of a build but /tmp).
BUILD_DIR: Final = "/build"
#: The optional file naming the language and extra compiler flags.
BOT_JSON: Final = "bot.json"
#: The largest bot.json read.
MAX_BOT_JSON_BYTES: Final = 4096


class BadBotCode(ValueError):
    """The bot's code folder cannot be run (no entry file, two of them, a bad bot.json)."""


class BuildFailed(BadBotCode):
    """The bot does not build; ``log`` holds the compiler's messages for its owner."""

    def __init__(self, reason: str, log: str = "") -> None:
        super().__init__(f"{reason}\n{log}".rstrip())
        self.reason = reason
        self.log = log


@dataclass(frozen=True)
class Runtime:
    """One language: how its bots are recognised, built and run."""

    name: str  # what bot.json's "language" says, and the image's suffix
    title: str  # for people: language and toolchain version
    entry: str  # the one file a bot of this language starts from
    image: str  # the Docker image holding the toolchain
    run: tuple[str, ...]  # the bot's command, in the folder of its (built) code
    compile: str = ""  # shell command building folder {out} from the sources; "" = none
    flags: frozenset[str] = frozenset()  # extra compiler flags bot.json may ask for
    tool: str = ""  # the compiler's program (to tell whether a host has the toolchain)
    #: Its virtual machine reserves far more address space than it uses (the JVM, V8, Go):
    #: an address-space cap (the local backend's memory limit) would kill it at once.
    reserves_address_space: bool = False
    #: The modules a zygote imports once per pooled container, each seating's bot then
    #: forked from it (``sandbox.supervisor``); () = none: the bot is exec'd. The first
    #: always, the others where the bot's code names them (``zygote_modules``).
    zygote: tuple[str, ...] = ()

    def zygote_modules(self, archive: bytes) -> tuple[str, ...]:
        """What the zygote of a bot whose code is ``archive`` (an uncompressed tar)
        imports: numpy costs each fork about 2 ms more (its pages), for nothing to a bot
        that never imports it. A bot that imports it under a name made at run time
        imports it itself, as it would without a zygote."""
        first, *others = self.zygote or ("",)
        wanted = [name for name in others if name.encode() in archive]
        return (first, *wanted) if first else ()

    @property
    def compiled(self) -> bool:
        return bool(self.compile)

    def compile_line(self, out: str) -> str:
        """The compile command writing into folder ``out`` (bot.json's flags are "$@")."""
        return self.compile.replace("{out}", out)


PYTHON = Runtime(
    name="python",
    title="Python 3.11 (with numpy and scipy)",
    entry="main.py",
    image="cardjudge/runtime-python:latest",
    run=("python3", "main.py"),
    zygote=("botkit", "numpy"),
)
CPP = Runtime(
    name="cpp",
    title="C++20 (g++ 12, -O2)",
    entry="main.cpp",
    image="cardjudge/runtime-cpp:latest",
    run=("./main",),
    compile='g++ -std=c++20 -O2 -pipe -o {out}/main "$@" $(find . -name "*.cpp")',
    flags=frozenset({"-O0", "-O1", "-O3", "-Os", "-DNDEBUG", "-std=c++17", "-std=c++23"}),
    tool="g++",
)
RUST = Runtime(
    name="rust",
    title="Rust 2021 (rustc 1.63, -O)",
    entry="main.rs",
    image="cardjudge/runtime-rust:latest",
    run=("./main",),
    compile='rustc --edition 2021 -O -o {out}/main "$@" main.rs',
    flags=frozenset({"-Ccodegen-units=1", "-Cpanic=abort", "-Ctarget-cpu=x86-64-v2"}),
    tool="rustc",
)
JAVA = Runtime(
    name="java",
    title="Java 17 (OpenJDK)",
    entry="Main.java",
    image="cardjudge/runtime-java:latest",
    run=(
        "java",
        "-XX:+UseSerialGC",
        "-XX:-UsePerfData",
        "-Xshare:auto",
        "-XX:MaxRAMPercentage=60",
        "-cp",
        ".",
        "Main",
    ),
    compile='javac -J-Xmx512m -encoding UTF-8 -d {out} "$@" $(find . -name "*.java")',
    flags=frozenset({"-g", "-nowarn", "-Xlint:all"}),
    tool="javac",
    reserves_address_space=True,
)
JAVASCRIPT = Runtime(
    name="js",
    title="JavaScript (Node.js 18)",
    entry="main.js",
    image="cardjudge/runtime-js:latest",
    run=("node", "main.js"),
    reserves_address_space=True,
)
GO = Runtime(
    name="go",
    title="Go 1.19",
    entry="main.go",
    image="cardjudge/runtime-go:latest",
    run=("./main",),
    compile=(
        "GO111MODULE=off GOCACHE=/tmp/go-cache GOPATH=/tmp/go "
        'go build -o {out}/main "$@" $(ls *.go)'
    ),
    flags=frozenset({"-trimpath", "-gcflags=-B"}),
    tool="go",
    reserves_address_space=True,
)

RUNTIMES: Final = {r.name: r for r in (PYTHON, CPP, RUST, JAVA, JAVASCRIPT, GO)}
BY_ENTRY: Final = {r.entry: r for r in RUNTIMES.values()}


@dataclass(frozen=True)
class BotBuild:
    """What a bot folder asks for: its runtime and the extra compiler flags."""

    runtime: Runtime
    flags: tuple[str, ...] = ()


def detect(code: Path) -> BotBuild:
    """The runtime of the bot in folder ``code``, from its entry file and bot.json.

    BadBotCode says what is wrong: no entry file, several (without a bot.json choosing
    one), or a bot.json that is not an object with a known language and allowed flags.
    """
    present = [r.entry for r in RUNTIMES.values() if (code / r.entry).is_file()]
    return detect_files(present, _bot_json_bytes(code / BOT_JSON))


def detect_files(top: Collection[str], bot_json: bytes | None) -> BotBuild:
    """The same, from the names at the bot's top and its bot.json's bytes (None: none):
    what an upload is checked with before anything is stored (tournaments.bots.uploads)."""
    present = [r for r in RUNTIMES.values() if r.entry in top]
    wanted = _read_bot_json(bot_json)
    language = wanted.get("language")
    if language is not None:
        if not isinstance(language, str) or language not in RUNTIMES:
            raise BadBotCode(f"bot.json: unknown language {language!r}; one of {names()}")
        runtime = RUNTIMES[language]
        if runtime not in present:
            raise BadBotCode(f"bot.json says {language}, but there is no {runtime.entry}")
    elif len(present) == 1:
        runtime = present[0]
    elif not present:
        raise BadBotCode(f"the bot has no entry file; put one of {entries()} at its top")
    else:
        found = ", ".join(r.entry for r in present)
        raise BadBotCode(f"the bot has several entry files ({found}); keep one")
    return BotBuild(runtime, _flags(runtime, wanted.get("flags", [])))


def _bot_json_bytes(path: Path) -> bytes | None:
    """At most one byte past the limit of the bot.json at ``path`` (None: there is none)."""
    if not path.is_file():
        return None
    with path.open("rb") as file:
        return file.read(MAX_BOT_JSON_BYTES + 1)


def _read_bot_json(raw: bytes | None) -> dict[str, object]:
    if raw is None:
        return {}
    if len(raw) > MAX_BOT_JSON_BYTES:
        raise BadBotCode(f"bot.json is larger than {MAX_BOT_JSON_BYTES} bytes")
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadBotCode(f"bot.json is not valid JSON: {error}") from None
    if not isinstance(value, dict) or set(value) - {"language", "flags"}:
        raise BadBotCode('bot.json must be an object with only "language" and "flags"')
    return value


def _flags(runtime: Runtime, flags: object) -> tuple[str, ...]:
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise BadBotCode('bot.json: "flags" must be a list of strings')
    if flags and not runtime.compiled:
        raise BadBotCode(f"bot.json: {runtime.name} bots are not compiled; drop the flags")
    bad = [f for f in flags if f not in runtime.flags]
    if bad:
        allowed = ", ".join(sorted(runtime.flags))
        raise BadBotCode(f"bot.json: flags {bad} are not allowed for {runtime.name}: {allowed}")
    return tuple(dict.fromkeys(flags))


def names() -> str:
    return ", ".join(RUNTIMES)


def entries() -> str:
    return ", ".join(BY_ENTRY)
