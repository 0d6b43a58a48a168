"""scripts/bootstrap, the set-up everyone and CI run first: its steps run in order, a step
marked ``bootstrap: background`` runs beside the later ones and is waited for, a failure
stops it (or, for the main job, warns), the packages install beside the steps, and a
second run does nothing again.

Each test runs the real script in a copy of the repository's layout whose steps are small
shell scripts, with a virtualenv whose ``python`` is a shell script too (no real pip)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: A step that waits, at most a minute, for a file a later step writes: it can only finish
#: if it runs beside that later step.
WAITS_FOR_LATER = """#!/usr/bin/env bash
# bootstrap: background
for _ in $(seq 1 600); do
  [ -f var/later-ran ] && { touch var/background-ran; exit 0; }
  sleep 0.1
done
exit 1
"""
LATER = "#!/usr/bin/env bash\nmkdir -p var && touch var/later-ran\n"
FAILS = "#!/usr/bin/env bash\necho 'the engine would not start' >&2\nexit 3\n"
#: ``python -m pip ...`` as the fake virtualenv's python: logs each call, fails if asked to.
FAKE_PYTHON = """#!/usr/bin/env bash
echo "$*" >>var/pip-calls
[ ! -f pip-fails ] || { echo 'no matching distribution' >&2; exit 1; }
"""


def layout(tmp_path: Path, steps: dict[str, str], installed: bool = True) -> Path:
    """A checkout with the real scripts/bootstrap, the given steps and a fake virtualenv
    (its packages already installed unless ``installed`` is false)."""
    root = tmp_path / "checkout"
    (root / "scripts" / "bootstrap.d").mkdir(parents=True)
    (root / "var").mkdir()
    shutil.copy(ROOT / "scripts" / "bootstrap", root / "scripts" / "bootstrap")
    for name, text in steps.items():
        step = root / "scripts" / "bootstrap.d" / name
        step.write_text(text)
        step.chmod(0o755)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    if installed:
        digest = hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()[:16]
        (root / ".venv" / f".installed-{digest}").touch()
    return root


def bootstrap(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(root / "scripts" / "bootstrap")],
        cwd=root,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_background_step_runs_beside_the_later_ones_and_is_waited_for(
    tmp_path: Path,
) -> None:
    root = layout(tmp_path, {"10-images": WAITS_FOR_LATER, "20-browser": LATER})
    run = bootstrap(root)
    assert run.returncode == 0, run.stderr
    assert (root / "var" / "background-ran").exists()  # waited for before bootstrap ended


def test_a_failed_step_stops_the_tests_bootstrap_and_warns_the_main_jobs(
    tmp_path: Path,
) -> None:
    for failing in (FAILS, "#!/usr/bin/env bash\n# bootstrap: background\nexit 3\n"):
        root = layout(tmp_path / str(len(failing)), {"10-engine": failing, "20-browser": LATER})
        run = bootstrap(root)
        assert run.returncode == 1
        assert "error: scripts/bootstrap: scripts/bootstrap.d/10-engine failed" in run.stderr
        run = bootstrap(root, JUDGE_BOOTSTRAP_SYSTEM="optional")
        assert run.returncode == 0, run.stderr
        assert "WARNING: scripts/bootstrap.d/10-engine failed; carrying on" in run.stderr
        assert (root / "var" / "later-ran").exists()


def test_a_step_named_in_the_skip_list_is_left_out(tmp_path: Path) -> None:
    root = layout(tmp_path, {"10-engine": FAILS, "20-browser": LATER})
    run = bootstrap(root, JUDGE_BOOTSTRAP_SKIP="10-engine")
    assert run.returncode == 0, run.stderr
    assert (root / "var" / "later-ran").exists()


def test_the_packages_install_once_beside_the_steps(tmp_path: Path) -> None:
    root = layout(tmp_path, {"20-browser": LATER}, installed=False)
    first = bootstrap(root)
    assert first.returncode == 0, first.stderr
    calls = (root / "var" / "pip-calls").read_text().splitlines()
    assert calls == [
        "-m pip install --disable-pip-version-check --upgrade pip",
        "-m pip install --disable-pip-version-check -e .[dev]",
    ]
    assert (root / "var" / "later-ran").exists()
    second = bootstrap(root)  # installed: the stamp says so, pip is not called again
    assert second.returncode == 0, second.stderr
    assert (root / "var" / "pip-calls").read_text().splitlines() == calls


def test_a_failed_install_says_where_its_log_is_and_is_tried_again(tmp_path: Path) -> None:
    root = layout(tmp_path, {"20-browser": LATER}, installed=False)
    (root / "pip-fails").touch()
    run = bootstrap(root)
    assert run.returncode == 1
    assert "no matching distribution" in run.stderr
    assert "error: installing the Python packages failed (whole log: var/pip.log)" in run.stderr
    (root / "pip-fails").unlink()
    assert bootstrap(root).returncode == 0  # no stamp was left: it installs this time
