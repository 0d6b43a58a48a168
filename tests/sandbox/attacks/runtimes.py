"""An attack written in Python, run as a bot of any language: each runtime image carries
python3 (the supervisor's), so a bot in C++, Rust, Java, JavaScript or Go can start it.
What differs between the images (their own set-up of the bot's process, the supervisor's
environment, the build) is then exercised with the same probe everywhere."""

from __future__ import annotations

import base64
from pathlib import Path

#: Each language's entry file, running ``python3 -c CODE`` on the bot's own streams.
SOURCES = {
    "cpp": (
        "main.cpp",
        '#include <unistd.h>\nint main() {\n  execlp("python3", "python3", "-c", "CODE", '
        "(char*)nullptr);\n  return 127;\n}\n",
    ),
    "rust": (
        "main.rs",
        "use std::os::unix::process::CommandExt;\nfn main() {\n"
        '    let error = std::process::Command::new("python3").args(["-c", "CODE"]).exec();\n'
        '    eprintln!("{}", error);\n    std::process::exit(127);\n}\n',
    ),
    "java": (
        "Main.java",
        "public class Main {\n  public static void main(String[] args) throws Exception {\n"
        '    Process child = new ProcessBuilder("python3", "-c", "CODE").inheritIO().start();\n'
        "    System.exit(child.waitFor());\n  }\n}\n",
    ),
    "js": (
        "main.js",
        'const child = require("child_process");\n'
        'const done = child.spawnSync("python3", ["-c", "CODE"], { stdio: "inherit" });\n'
        "process.exit(done.status === null ? 127 : done.status);\n",
    ),
    "go": (
        "main.go",
        'package main\n\nimport (\n\t"os"\n\t"syscall"\n)\n\nfunc main() {\n'
        '\terr := syscall.Exec("/usr/bin/python3", []string{"python3", "-c", "CODE"}, '
        "os.Environ())\n\tprintln(err.Error())\n\tos.Exit(127)\n}\n",
    ),
}


def bot_folder(parent: Path, language: str, script: Path) -> Path:
    """A bot folder of ``language`` whose program runs the Python ``script``."""
    folder = parent / f"{script.stem}-{language}"
    folder.mkdir()
    if language == "python":
        (folder / "main.py").write_text(script.read_text())
        return folder
    entry, source = SOURCES[language]
    packed = base64.b64encode(script.read_bytes()).decode()
    code = f"import base64; exec(base64.b64decode('{packed}'))"
    (folder / entry).write_text(source.replace("CODE", code))
    return folder
