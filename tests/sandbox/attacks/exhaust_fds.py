"""Exhausting file descriptors: open files and sockets until refused."""

import json
import socket
import sys

held = []
refused = ""
try:
    while len(held) < 100_000:
        held.append(open("/dev/null", "rb"))  # noqa: SIM115 (held open on purpose)
        held.append(socket.socketpair()[0])
except OSError as error:
    refused = type(error).__name__ + " " + str(error.errno)
print(
    "REPORT " + json.dumps({"opened": len(held), "refused": refused}), file=sys.stderr, flush=True
)
