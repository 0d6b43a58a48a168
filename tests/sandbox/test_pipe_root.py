"""Where a pipe root made for a run goes: a tmpfs where the host has one, because every
pooled seating makes and removes a folder of FIFOs (0.5-2.7 ms of the worker's CPU on a
disk's ext4, 0.06-0.2 ms on a tmpfs: docs/sandbox.md)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from sandbox.pipes import fast_folder, temporary_root


def mounts(tmp_path: Path, kind: str) -> Path:
    table = tmp_path / "mounts"
    table.write_text(
        "/dev/vda / ext4 rw,relatime 0 0\n"
        f"{kind} /dev/shm {kind} rw,nosuid,nodev 0 0\n"
        "proc /proc proc rw 0 0\n"
    )
    return table


def test_shared_memory_is_used_only_when_it_is_a_tmpfs(tmp_path: Path) -> None:
    if not os.access("/dev/shm", os.W_OK | os.X_OK):
        pytest.fail("this host has no writable /dev/shm to check against")
    assert fast_folder(mounts(tmp_path, "tmpfs")) == Path("/dev/shm")
    assert fast_folder(mounts(tmp_path, "ext4")) is None
    assert fast_folder(tmp_path / "no-such-table") is None


def test_a_temporary_root_is_searchable_on_the_fast_folder() -> None:
    root = temporary_root("cardjudge-test-")
    try:
        assert root.stat().st_mode & 0o777 == 0o711
        assert root.parent == (fast_folder() or Path(tempfile.gettempdir()))
    finally:
        root.rmdir()
