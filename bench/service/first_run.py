"""The main job from a fresh checkout: seconds until the web UI answers, and the demo's
matches per minute played by scripts/run's Celery workers against the same demo played in
one process (the old way, ``manage.py demo``), measured in the same run on the same clone.

A fresh clone of this repository's HEAD is made in a temporary folder; ``scripts/run``
there installs its virtualenv (from the warm pip cache), prepares SQLite, starts Redis,
workers, beat and gunicorn, and follows the demo; it is stopped with Ctrl-C once the demo
is over. Then ``manage.py demo --fresh`` plays new demos in one process on the same
database. The ratio is workers / one process (above 1: the workers are faster).

Run: ``python -m bench.service.first_run [--sandbox docker|local] [--keep]`` (a few minutes).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DONE = "Ctrl-C stops everything"
PLAYED = re.compile(r"\): finished, (\d+) of \d+ matches played")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


def first_run(clone: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """scripts/run in ``clone``: (seconds to serving, seconds of the demo, matches played)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    log = clone / "first-run.log"
    began = time.monotonic()
    serving = demo_began = 0.0
    with log.open("wb") as out:
        run = subprocess.Popen(
            [str(clone / "scripts" / "run"), "--no-progress"],
            cwd=clone,
            env={**env, "ADDR": f"127.0.0.1:{port}"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            while True:
                if run.poll() is not None:
                    sys.exit(f"scripts/run stopped:\n{log.read_text()}")
                text = log.read_text(errors="replace")
                now = time.monotonic()
                if not serving and answers(url):
                    serving = now - began
                if not demo_began and "playing the demo round robins" in text:
                    demo_began = now
                if DONE in text:
                    demo = now - demo_began
                    break
                time.sleep(0.2)
        finally:
            run.send_signal(signal.SIGINT)
            run.wait(timeout=120)
    matches = sum(int(n) for n in PLAYED.findall(log.read_text()))
    return serving, demo, matches


def one_process_demo(clone: Path, env: dict[str, str]) -> tuple[float, int]:
    """``manage.py demo --fresh`` in one process: (seconds, matches played)."""
    began = time.monotonic()
    done = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "manage.py", "demo", "--fresh", "--no-progress"],
        cwd=clone,
        env={**env, "CELERY_TASK_ALWAYS_EAGER": "false"},
        capture_output=True,
        text=True,
        check=True,
    )
    return time.monotonic() - began, sum(int(n) for n in PLAYED.findall(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default=None)
    parser.add_argument("--keep", action="store_true", help="keep the clone (its var/log)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-first-run-"))
    clone = folder / "cardjudge"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "CELERY_"))}
    env.pop("DATABASE_URL", None)
    env.pop("VIRTUAL_ENV", None)
    if args.sandbox:
        env["JUDGE_SANDBOX"] = args.sandbox
    serving, demo, played = first_run(clone, env)
    sandbox = "docker" if "docker sandbox" in (clone / "first-run.log").read_text() else "local"
    env["JUDGE_SANDBOX"] = sandbox
    alone, alone_played = one_process_demo(clone, env)
    workers_rate = played / demo * 60
    alone_rate = alone_played / alone * 60
    print(f"fresh clone to serving: {serving:.0f} s (installs from the warm pip cache included)")
    print(f"demo ({sandbox} sandbox), workers of scripts/run: {played} matches in {demo:.0f} s")
    print(f"  = {workers_rate:.0f} matches/min")
    print(f"demo, one process (baseline):  {alone_played} matches in {alone:.0f} s")
    print(f"  = {alone_rate:.0f} matches/min")
    print(f"ratio workers / one process: {workers_rate / alone_rate:.2f}x")
    if not args.keep:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


if __name__ == "__main__":
    main()
