"""OpenSSH's sshd on a loopback port, SFTP only, with a host key and a client key made
for the test: the replay store that worker hosts share (docs/deploy.md, "Workers on
several machines"), for tests/tournaments/test_shared_replays.py (worker processes) and
tests/deploy/test_stack.py (worker containers)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SFTP = "storages.backends.sftpstorage.SFTPStorage"


@dataclass(frozen=True)
class Store:
    """An SFTP server's address, its folder, and what a client needs to reach it."""

    port: int
    root: Path
    key: Path
    known_hosts: Path

    def env(self, secrets: Path | None = None) -> dict[str, str]:
        """The settings of a web or worker process using the store; ``secrets``: the
        folder the key and known_hosts file are seen at (a container's mount), if not
        where they are here."""
        key, known = self.key, self.known_hosts
        if secrets is not None:
            key, known = secrets / key.name, secrets / known.name
        return {
            "REPLAY_STORAGE": SFTP,
            "SFTP_STORAGE_HOST": "127.0.0.1",
            "SFTP_STORAGE_PORT": str(self.port),
            "SFTP_STORAGE_USER": "root",
            "SFTP_STORAGE_KEY_FILE": str(key),
            "SFTP_STORAGE_ROOT": str(self.root),
            "SFTP_KNOWN_HOST_FILE": str(known),
        }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def sftp_server(folder: Path) -> Iterator[Store]:
    """sshd on 127.0.0.1 with its keys and configuration in ``folder/sshd`` and the store
    in ``folder/replay-store``; the client's key and known_hosts file alone in
    ``folder/client`` (readable by anyone: a container's user reads them). Stopped by its
    PID."""
    config_folder, client = folder / "sshd", folder / "client"
    config_folder.mkdir(mode=0o700)
    client.mkdir(mode=0o755)
    for name, where in (("host", config_folder), ("client", client)):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(where / name)], check=True
        )
    (client / "client").chmod(0o644)  # test keys, read by a container's unprivileged user
    (config_folder / "authorized_keys").write_text((client / "client.pub").read_text())
    port = free_port()
    host_key = (config_folder / "host.pub").read_text().split()
    (client / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    root = folder / "replay-store"
    root.mkdir()
    config = config_folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {config_folder / 'host'}\n"
        f"AuthorizedKeysFile {config_folder / 'authorized_keys'}\n"
        f"PidFile {config_folder / 'sshd.pid'}\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        "PermitRootLogin prohibit-password\nStrictModes no\nForceCommand internal-sftp\n"
        "Subsystem sftp internal-sftp\nAllowTcpForwarding no\nX11Forwarding no\n"
        "MaxStartups 100\nMaxSessions 100\n"
    )
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation
    with open(config_folder / "sshd.log", "wb") as log:
        server = subprocess.Popen(
            ["/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 30
            while not listening(port) and server.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert server.poll() is None and listening(port), (
                config_folder / "sshd.log"
            ).read_text()
            yield Store(port, root, client / "client", client / "known_hosts")
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
