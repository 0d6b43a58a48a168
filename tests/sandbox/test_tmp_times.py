"""Issue 43: /tmp's own times carried 8 bits from one seating of a reused container to the
next (the supervisor emptied /tmp but left its times as the bot set them). The clean now
puts them back: the next seating finds /tmp's modification time as the container started
and an access time the bot did not choose."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox.attacks import harness, runtimes
from tests.sandbox.test_docker_isolation import two_seatings_pooled, two_seatings_reused

pytestmark = pytest.mark.docker

MOVER = harness.ATTACKS / "tmp_times.py"
REUSING = {"pool": two_seatings_pooled, "reuse": two_seatings_reused}


@pytest.mark.parametrize("lifecycle", sorted(REUSING))
def test_the_next_seating_finds_tmps_times_as_the_container_started(
    tmp_path: Path, lifecycle: str
) -> None:
    folder = runtimes.bot_folder(tmp_path, "python", MOVER)
    first, second = REUSING[lifecycle](folder, f"tmp-times-{lifecycle}")
    assert first["after"]["mtime"] != first["start"]["mtime"], "the bot moved them"
    assert second["start"]["mtime"] == first["start"]["mtime"]
    assert second["start"]["atime"] != first["after"]["atime"]
