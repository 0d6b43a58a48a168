"""A sandbox backend for tests that records what the runner asked of it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sandbox.channel import Channel
from sandbox.limits import Limits
from sandbox.local import LocalBackend
from sandbox.runtimes import Runtime


class RecordingBackend:
    """The local backend (real child processes), noting the label of each bot started."""

    name = "local"

    def __init__(self) -> None:
        self.inner = LocalBackend()
        self.labels: list[str] = []

    def start(
        self, code: Path, *, label: str, limits: Limits, env: Mapping[str, str] | None = None
    ) -> Channel:
        self.labels.append(label)
        return self.inner.start(code, label=label, limits=limits, env=env)

    def build(self, code: Path, *, label: str = "build") -> Runtime:
        return self.inner.build(code, label=label)
