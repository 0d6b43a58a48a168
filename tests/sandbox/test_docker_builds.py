"""Compiling bots in the sandbox: errors with file and line, one build per content, and
a compiler that is made to run too long, use too much memory or write too much is
stopped with a clear rejection, leaving nothing behind."""

from __future__ import annotations

import functools
import io
import tarfile
import time
from pathlib import Path

import pytest

from sandbox.builds import BuildLimits, BuildStore
from sandbox.docker_backend import DockerBackend
from sandbox.limits import Limits
from sandbox.runtimes import BuildFailed
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker


@functools.cache
def builder(wall_clock_s: float = 120.0) -> DockerBackend:
    """A backend with its own build store (no other test's builds) and build clock."""
    return DockerBackend(
        pipe_root=None,
        client=harness.client(),
        clean=False,
        builds=BuildStore(harness.PIPE_ROOT.parent / f"{harness.RUN_PREFIX}-builds"),
        build_limits=BuildLimits(wall_clock_s=wall_clock_s),
    )


def bot(tmp_path: Path, files: dict[str, str]) -> Path:
    code = tmp_path / f"bot{len(list(tmp_path.iterdir()))}"
    code.mkdir()
    for name, text in files.items():
        (code / name).write_text(text)
    return code


@pytest.mark.parametrize(
    ("entry", "source", "where"),
    [
        ("main.cpp", "int main() {\n  return missing;\n}\n", "main.cpp:2:"),
        ("main.rs", "fn main() {\n    let x: u8 = missing;\n}\n", "main.rs:2:"),
        ("Main.java", "public class Main {\n  int x = missing;\n}\n", "Main.java:2:"),
        ("main.go", "package main\n\nfunc main() { missing() }\n", "main.go:3:"),
    ],
)
def test_a_compiler_error_names_the_file_and_line(
    tmp_path: Path, entry: str, source: str, where: str
) -> None:
    with pytest.raises(BuildFailed, match="does not compile") as failed:
        builder().prepared(bot(tmp_path, {entry: source}), label=harness.label("err"))
    assert where in failed.value.log
    assert "missing" in failed.value.log
    assert harness.leftovers_of_this_run() == []


def test_a_build_is_made_once_and_reused(tmp_path: Path) -> None:
    source = '#include "helper.h"\nint main() { return answer() - 42; }\n'
    helper = "inline int answer() { return 42; }\n"
    code = bot(tmp_path, {"main.cpp": source, "helper.h": helper})
    backend = builder()
    runtime, first = backend.prepared(code, label=harness.label("once"))
    assert runtime.name == "cpp"
    stored = sorted(backend.builds.folder.iterdir())
    _, again = backend.prepared(bot(tmp_path, {"main.cpp": source, "helper.h": helper}))
    assert again == first
    assert sorted(backend.builds.folder.iterdir()) == stored  # nothing new was built
    changed = bot(tmp_path, {"main.cpp": source, "helper.h": helper.replace("42", "41")})
    _, other = backend.prepared(changed, label=harness.label("changed"))
    assert other != first


def test_a_compiled_bot_runs_from_its_build(tmp_path: Path) -> None:
    source = (
        "#include <iostream>\n#include <string>\n"
        "int main() { std::string line;\n"
        "  while (std::getline(std::cin, line)) std::cout << line.size() << std::endl; }\n"
    )
    channel = builder().start(
        bot(tmp_path, {"main.cpp": source}), label=harness.label("run"), limits=Limits()
    )
    try:
        channel.send(b"hello")
        assert channel.recv(time.monotonic() + 60) == b"5"
    finally:
        channel.close()


# Every instantiation is a new type (K differs), so nothing is memoised: 2**40 of them.
# No compiler limit applies (the depth is 40), so it runs until the sandbox stops it.
ENDLESS_TEMPLATES = """
template <int N, unsigned long long K> struct Tree {
    static constexpr unsigned long long value =
        Tree<N - 1, 2 * K>::value + Tree<N - 1, 2 * K + 1>::value;
};
template <unsigned long long K> struct Tree<0, K> {
    static constexpr unsigned long long value = K;
};
int main() { return static_cast<int>(Tree<40, 1>::value); }
"""


def test_a_compiler_made_to_run_for_ever_is_stopped(tmp_path: Path) -> None:
    # The build clock is short here; whether it or the memory cap stops the compiler
    # first depends on the machine: either way the build is refused, cleanly.
    with pytest.raises(BuildFailed, match=r"stopped|out of memory|does not compile"):
        builder(5.0).build(
            bot(tmp_path, {"main.cpp": ENDLESS_TEMPLATES}), label=harness.label("loop")
        )
    assert harness.leftovers_of_this_run() == []


def test_a_build_writing_too_much_is_refused(tmp_path: Path) -> None:
    # 96 MiB of initialised data (kept: main reads it) make a program over the 64 MiB cap.
    source = "char big[96 << 20] = {1};\nint main(int n, char**) { return big[n * 12345]; }\n"
    with pytest.raises(BuildFailed, match=r"does not compile|more than 64 MiB"):
        builder().build(bot(tmp_path, {"main.cpp": source}), label=harness.label("big"))
    assert harness.leftovers_of_this_run() == []


def test_the_build_keeps_only_the_output_read_only(tmp_path: Path) -> None:
    # The compiler's status and messages stay out of the artefact; the sources too.
    source = "int main() { return 0; }\n"
    _, artefact = builder().prepared(bot(tmp_path, {"main.cpp": source, "notes.txt": "x"}))
    with tarfile.open(fileobj=io.BytesIO(artefact)) as archive:
        modes = {info.name: (info.mode, info.uid) for info in archive}
    assert modes == {"main": (0o555, 0)}
