"""What a sandboxed bot may use: one frozen value, configurable per game or tournament."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Resource caps for one bot process (or container) and its line channel.

    The defaults suit a Python bot playing one match: enough for the interpreter and a
    simulation-based bot, far too little to hurt the machine.
    """

    memory_mb: int = 256  # RAM; swap is set equal to it (no swap beyond RAM)
    cpus: float = 1.0  # CPU share
    pids: int = 64  # processes and threads
    open_files: int = 64
    file_size_mb: int = 8  # largest file the bot may write
    tmp_mb: int = 16  # size of the only writable folder, /tmp
    wall_clock_s: float = 3600.0  # the whole container's life, whatever happens
    line_bytes: int = 1 << 20  # longest line the bot may send
    stderr_bytes: int = 64 << 10  # standard error kept (the bot's log)
    send_timeout_s: float = 5.0  # how long a send waits for a bot that stopped reading

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not value > 0:
                raise ValueError(f"Limits.{name} must be positive, not {value!r}")
